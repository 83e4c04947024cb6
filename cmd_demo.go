package main

import (
	"errors"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/demo"
)

// DemoCmd plays a short story on a built-in herdr simulator, so a newcomer
// sees what the tool does without herdr installed (package demo).
type DemoCmd struct {
	Format string        `help:"Name template to show." default:"{icon} {proc|dir}"`
	MaxLen int           `help:"Longest name in display columns." default:"24"`
	Pause  time.Duration `help:"Pause between steps." default:"0s" env:"-"`
}

// Run plays the story. Exit 2: a bad template.
func (c *DemoCmd) Run(env *runEnv) error {
	err := demo.Run(demo.Options{Format: c.Format, MaxLen: c.MaxLen, Pause: c.Pause}, env.stdout)
	if bad := (*demo.BadTemplate)(nil); errors.As(err, &bad) {
		return withExit(2, err)
	}
	return err
}
