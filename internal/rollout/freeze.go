package rollout

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	// Time zones resolve in images without /usr/share/zoneinfo (FROM scratch).
	_ "time/tzdata"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// maxWindowStarts bounds the starts walked to find the windows open at an
// instant: a window every minute lasting 64h has 3,840; more is a mistake.
const maxWindowStarts = 20000

// freezeWindow is a parsed spec.freezeWindows entry.
type freezeWindow struct {
	spec     string
	schedule cron.Schedule
	duration time.Duration
}

// parseFreezeWindows parses every window, or says which one is wrong.
func parseFreezeWindows(windows []v1alpha1.FreezeWindow) ([]freezeWindow, error) {
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	out := make([]freezeWindow, 0, len(windows))
	for i, w := range windows {
		loc := time.UTC
		if w.TimeZone != "" {
			var err error
			if loc, err = time.LoadLocation(w.TimeZone); err != nil {
				return nil, fmt.Errorf("freezeWindows[%d]: time zone %q: %w", i, w.TimeZone, err)
			}
		}
		sched, err := parser.Parse(w.Schedule)
		if err != nil {
			return nil, fmt.Errorf("freezeWindows[%d]: schedule %q: %w", i, w.Schedule, err)
		}
		if w.Duration.Duration <= 0 {
			return nil, fmt.Errorf("freezeWindows[%d]: duration must be positive", i)
		}
		if spec, ok := sched.(*cron.SpecSchedule); ok {
			spec.Location = loc
		}
		out = append(out, freezeWindow{
			spec:     fmt.Sprintf("%q for %s (%s)", w.Schedule, w.Duration.Duration, loc),
			schedule: sched, duration: w.Duration.Duration,
		})
	}
	return out, nil
}

// frozenUntil is the end of the freeze windows open at now (windows that
// overlap or follow each other without a gap count as one); zero when none is.
func frozenUntil(windows []freezeWindow, now time.Time) (time.Time, string) {
	var end time.Time
	var which string
	for changed := true; changed; {
		changed = false
		at := now
		if !end.IsZero() {
			at = end // a window opening exactly as another ends extends the freeze
		}
		for _, w := range windows {
			if e := w.openUntil(at); e.After(end) {
				end, which, changed = e, w.spec, true
			}
		}
	}
	return end, which
}

// openUntil is the latest end of this window's occurrences open at t.
func (w freezeWindow) openUntil(t time.Time) time.Time {
	var end time.Time
	// Next is strictly after its argument: start one tick before the earliest
	// start whose occurrence still covers t.
	s := w.schedule.Next(t.Add(-w.duration).Add(-time.Second))
	for i := 0; i < maxWindowStarts && !s.IsZero() && !s.After(t); i++ {
		if e := s.Add(w.duration); e.After(t) && e.After(end) {
			end = e
		}
		s = w.schedule.Next(s)
	}
	return end
}
