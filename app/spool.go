package app

import (
	"fmt"
	"io"
	"os"
)

// spooled runs write into a temporary file, then copies what it wrote to
// out: out's first byte comes only once write has succeeded, so an answer
// refused midway (a secret found by the exit guard, a failed read) is
// still refused whole. what names the operation in errors.
func spooled(out io.Writer, what string, write func(io.Writer) error) error {
	spool, err := os.CreateTemp("", "smriti-"+what+"-*")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	if err := write(spool); err != nil {
		return err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = io.Copy(out, spool)
	return err
}
