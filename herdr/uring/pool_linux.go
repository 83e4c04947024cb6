package uring

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"
)

// Pool hands out rings, one request each at a time: concurrent requests
// each get a ring of their own, opened on first need, up to a bound; past
// it they wait for one to come back. A ring that broke is closed, not
// reused. A Pool is safe for concurrent use.
type Pool struct {
	turns chan struct{} // one token per request in flight, at most the bound
	mu    sync.Mutex
	free  []*Ring
}

// NewPool makes a pool of at most size rings (at least 1) and opens its
// first ring, so that a kernel that refuses io_uring says so here.
func NewPool(size int) (*Pool, error) {
	r, err := Open()
	if err != nil {
		return nil, err
	}
	return &Pool{turns: make(chan struct{}, max(size, 1)), free: []*Ring{r}}, nil
}

// ConnectSend is Ring.ConnectSend on a ring of the pool's.
func (p *Pool) ConnectSend(ctx context.Context, path string, line []byte, deadline time.Time) (*os.File, error) {
	if err := p.acquire(ctx, deadline); err != nil {
		return nil, err
	}
	defer func() { <-p.turns }()
	r, err := p.ring()
	if err != nil {
		return nil, err
	}
	f, err := r.ConnectSend(ctx, path, line, deadline)
	p.put(r)
	return f, err
}

// acquire waits for a turn: for fewer requests in flight than the bound.
func (p *Pool) acquire(ctx context.Context, deadline time.Time) error {
	select {
	case p.turns <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case p.turns <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &OpError{Op: "connect", Err: ctx.Err()}
	case <-t.C:
		return &OpError{Op: "connect", Err: context.DeadlineExceeded}
	}
}

// ring lends out a free ring or opens one more.
func (p *Pool) ring() (*Ring, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		r := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return r, nil
	}
	p.mu.Unlock()
	r, err := Open()
	if err != nil {
		return nil, errors.Join(ErrBroken, err)
	}
	return r, nil
}

// put takes a ring back, or closes it if it broke.
func (p *Pool) put(r *Ring) {
	if r.broken {
		r.Close()
		return
	}
	p.mu.Lock()
	p.free = append(p.free, r)
	p.mu.Unlock()
}
