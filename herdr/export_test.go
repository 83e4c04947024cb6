package herdr

import "time"

// SetWarmShape lets the external tests shrink the warm pool's cycle: size
// connections, each replaced at the age renew.
func SetWarmShape(c *Client, size int, renew time.Duration) {
	c.warm.mu.Lock()
	defer c.warm.mu.Unlock()
	c.warm.cfg.size, c.warm.cfg.renew = size, renew
}

// PreferWarm makes the client take a warm connection whenever it has one,
// as if fresh ones always missed herdr's first look: tests that count
// requests on warm connections then do not depend on timing.
func PreferWarm(c *Client) {
	c.warm.mu.Lock()
	defer c.warm.mu.Unlock()
	c.warm.missed = 1
}
