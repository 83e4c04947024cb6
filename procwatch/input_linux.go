package procwatch

// inputEvents: Linux tells of a terminal's reads (inotify IN_ACCESS).
const inputEvents = true
