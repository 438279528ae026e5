package eval

// applyOverrides applies -O specs to the main package before it runs.
func (in *Interp) applyOverrides(p *pkgState) error {
	return nil
}
