package allinone

import (
	"strings"

	"github.com/spf13/pflag"
)

// mergeFlags adds every flag of the services' flag sets to fs. A flag that
// several services define (--concurrent, ...) becomes one flag that sets all
// of them. Flags named in skip are left out: the all-in-one process owns them.
func mergeFlags(fs *pflag.FlagSet, skip map[string]bool, sets ...*pflag.FlagSet) {
	merged := map[string]*fanout{}
	owners := map[string][]string{}
	var order []*pflag.Flag
	for _, set := range sets {
		set.VisitAll(func(f *pflag.Flag) {
			if skip[f.Name] {
				return
			}
			owners[f.Name] = append(owners[f.Name], set.Name())
			if fo, ok := merged[f.Name]; ok {
				fo.values = append(fo.values, f.Value)
				return
			}
			fo := &fanout{values: []pflag.Value{f.Value}}
			merged[f.Name] = fo
			order = append(order, &pflag.Flag{
				Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage,
				Value: fo, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal,
				Deprecated: f.Deprecated, Hidden: f.Hidden,
			})
		})
	}
	for _, f := range order {
		if names := owners[f.Name]; len(names) > 1 {
			f.Usage = "Sets --" + f.Name + " of the " + strings.Join(names, ", ") + " services. " + f.Usage
		}
		if fs.Lookup(f.Name) == nil {
			fs.AddFlag(f)
		}
	}
}

// fanout is a flag value that sets the same-named flag of several services.
type fanout struct{ values []pflag.Value }

func (f *fanout) Set(s string) error {
	for _, v := range f.values {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanout) String() string { return f.values[0].String() }

func (f *fanout) Type() string { return f.values[0].Type() }

// Slice flags (pflag.SliceValue) keep working through a fanout.
func (f *fanout) Append(s string) error {
	for _, v := range f.values {
		if sv, ok := v.(pflag.SliceValue); ok {
			if err := sv.Append(s); err != nil {
				return err
			}
		} else if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanout) Replace(vals []string) error {
	for _, v := range f.values {
		if sv, ok := v.(pflag.SliceValue); ok {
			if err := sv.Replace(vals); err != nil {
				return err
			}
		} else if err := v.Set(strings.Join(vals, ",")); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanout) GetSlice() []string {
	if sv, ok := f.values[0].(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.values[0].String()}
}
