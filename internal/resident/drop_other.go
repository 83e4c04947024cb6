//go:build !linux

package resident

// dropFilePages: fault-around and MADV_DONTNEED on file mappings are
// Linux's; elsewhere only the heap is handed back.
func dropFilePages() {}
