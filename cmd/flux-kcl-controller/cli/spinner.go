package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// spinner animates a waiting line on a terminal; elsewhere (pipes, logs, tests) it prints
// nothing, so output stays one line per step.
type spinner struct {
	done chan struct{}
	quit chan struct{}
}

func startSpinner(w io.Writer, text string) *spinner {
	s := &spinner{done: make(chan struct{}), quit: make(chan struct{})}
	if !isTerminal(w) {
		close(s.done)
		return s
	}
	go func() {
		defer close(s.done)
		frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%c %s", frames[i%len(frames)], text)
			select {
			case <-s.quit:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *spinner) stop() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.done
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
