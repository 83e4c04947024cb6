// Package atomicfile replaces a file in one rename, so a reader never sees
// half of it and a writer killed midway leaves the old one. The temporary
// file goes beside the target ("." + its name + digits), on the same file
// system, where a reader that cleans up after killed writers finds it.
package atomicfile
