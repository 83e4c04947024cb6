//go:build !unix

package session

import "os"

// ownedBy accepts every file: outside Unix a file's owner is no uid.
func ownedBy(string, os.FileInfo, int) error { return nil }
