//go:build race

package integration

// raceDetector: the test binary (and with it the in-process simulator)
// runs under the race detector, several times slower.
const raceDetector = true
