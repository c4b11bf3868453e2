package smriti

import (
	"encoding/json"
	"fmt"
)

// CheckMetadata bounds a metadata value's nesting (MaxMetadataDepth) and
// encoded size (MaxMetadataBytes), and checks its strings with CheckText.
func CheckMetadata(field string, m map[string]any) error {
	if m == nil {
		return nil
	}
	if err := checkValue(field, m, 1); err != nil {
		return err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return Errorf(EUNPROCESSABLE, "%s cannot be stored as JSON", field)
	}
	if len(b) > MaxMetadataBytes {
		return Errorf(EUNPROCESSABLE, "%s is %d bytes as JSON; the limit is %d", field, len(b), MaxMetadataBytes)
	}
	return nil
}

func checkValue(path string, v any, depth int) error {
	switch x := v.(type) {
	case string:
		return CheckText(path, x)
	case map[string]any:
		if depth > MaxMetadataDepth {
			return Errorf(EUNPROCESSABLE, "%s nests deeper than %d levels", path, MaxMetadataDepth)
		}
		for k, e := range x {
			if err := CheckText(path+" key", k); err != nil {
				return err
			}
			if err := checkValue(path+"."+k, e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		if depth > MaxMetadataDepth {
			return Errorf(EUNPROCESSABLE, "%s nests deeper than %d levels", path, MaxMetadataDepth)
		}
		for i, e := range x {
			if err := checkValue(fmt.Sprintf("%s[%d]", path, i), e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
