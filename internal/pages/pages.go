// Package pages reads keyset-paginated lists whole.
package pages

// All reads every page of a keyset-paginated list (see smriti.Page): fetch
// gets the cursor ("" for the first page) and returns a page and the next
// cursor ("" after the last).
func All[T any](fetch func(after string) ([]T, string, error)) ([]T, error) {
	var all []T
	after := ""
	for {
		got, next, err := fetch(after)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if next == "" {
			return all, nil
		}
		after = next
	}
}
