package smriti

import "testing"

func TestBranchValidators(t *testing.T) {
	runValidatorCases(t, []validatorCase{
		{"BranchTooLong", ValidateBranchName(long(maxBranchNameChars + 1)), EUNPROCESSABLE, "branch_name must be at most 255 characters"},
		{"Disposition", ValidateDisposition("merged"), EINVALID, "Invalid disposition 'merged'. Must be one of: abandoned, active, integrated"},
		{"DispositionOK", ValidateDisposition(DispositionIntegrated), "", ""},
	})
}
