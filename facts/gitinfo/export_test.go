package gitinfo

// size reports how many directories are cached.
func (c *Cache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
