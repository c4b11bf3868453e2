package smriti

import "testing"

func TestSpaceValidators(t *testing.T) {
	runValidatorCases(t, []validatorCase{
		{"NameOK", (&SpaceCreate{Name: long(maxSpaceNameChars)}).Validate(), "", ""},
		{"NameBlank", (&SpaceCreate{Name: " \t"}).Validate(), EUNPROCESSABLE, "name is required"},
		{"NameTooLong", (&SpaceCreate{Name: long(maxSpaceNameChars + 1)}).Validate(), EUNPROCESSABLE, "name must be at most 255 characters"},
		{"MetadataNUL", (&SpaceCreate{Name: "S", Metadata: map[string]any{"k": "a\x00"}}).Validate(), EUNPROCESSABLE, "metadata.k contains a NUL character"},
	})
}
