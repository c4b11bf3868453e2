package smriti

// ValidateDisposition accepts active, integrated and abandoned; anything
// else is EINVALID with the message the first implementation's clients
// expect.
func ValidateDisposition(d string) error {
	switch d {
	case DispositionActive, DispositionIntegrated, DispositionAbandoned:
		return nil
	}
	return Errorf(EINVALID, "Invalid disposition '%s'. Must be one of: abandoned, active, integrated", Truncate(d, 40))
}
