package herdr

import (
	"context"
	"errors"
)

type paneInfoResult struct {
	resultHeader
	Pane *Pane `json:"pane"`
}

// Pane reads one pane (pane.get): the one look at a pane's label right
// before renaming it.
func (c *Client) Pane(ctx context.Context, paneID string) (Pane, error) {
	params := struct {
		PaneID string `json:"pane_id"`
	}{paneID}
	return c.paneCall(ctx, "pane.get", params)
}

// RenamePane sets a pane's label (pane.rename), which herdr trims; a label
// that is empty once trimmed clears it, handing the pane back to herdr's
// border and sidebar defaults. herdr emits no event for it
// (docs/herdr.md §13): the reply is the only word of what it stored.
func (c *Client) RenamePane(ctx context.Context, paneID, label string) (Pane, error) {
	params := struct {
		PaneID string `json:"pane_id"`
		Label  string `json:"label"`
	}{paneID, label}
	return c.paneCall(ctx, "pane.rename", params)
}

// paneCall sends a request herdr answers with one pane (pane_info).
func (c *Client) paneCall(ctx context.Context, method string, params any) (Pane, error) {
	r, err := typedCall[paneInfoResult](ctx, c, method, params, "pane_info")
	if err != nil {
		return Pane{}, err
	}
	if r.Pane == nil {
		return Pane{}, &TransportError{Op: method, Path: c.path, Err: errors.New("result has no pane")}
	}
	return *r.Pane, nil
}

// ReportMetadata sets and clears a pane's metadata tokens under source
// (pane.report_metadata): a nil value clears its key, and so does one
// that herdr's cleaning (trim, no control characters, 80 characters)
// leaves empty. herdr takes at most 16 keys a request and 32 a pane; a
// token that changed bumps the pane's revision and emits pane.updated
// (docs/herdr.md §15).
func (c *Client) ReportMetadata(ctx context.Context, paneID, source string, tokens map[string]*string) error {
	params := struct {
		PaneID string             `json:"pane_id"`
		Source string             `json:"source"`
		Tokens map[string]*string `json:"tokens"`
	}{paneID, source, tokens}
	_, err := typedCall[resultHeader](ctx, c, "pane.report_metadata", params, "ok")
	return err
}
