package allinone

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// listeningSockets are the TCP sockets this process listens on, by inode: its own
// file descriptors matched with the kernel's LISTEN entries. Child processes (the
// apiserver) and other processes on the machine are not counted.
func listeningSockets(tb testing.TB) map[string]string {
	tb.Helper()
	own := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatalf("listing file descriptors: %v", err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			own[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	listening := map[string]string{}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue // no IPv6
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			if inode := fields[9]; own[inode] {
				local := fields[1]
				port, _ := strconv.ParseUint(local[strings.LastIndex(local, ":")+1:], 16, 16)
				listening[inode] = fmt.Sprintf("%s port %d", filepath.Base(table), port)
			}
		}
		_ = f.Close()
	}
	return listening
}

// newListeners are the listening sockets opened since before.
func newListeners(tb testing.TB, before map[string]string) []string {
	var opened []string
	for inode, desc := range listeningSockets(tb) {
		if _, ok := before[inode]; !ok {
			opened = append(opened, desc)
		}
	}
	return opened
}

func TestDefaultConfigOpensNoNATSPort(t *testing.T) {
	if addr := DefaultConfig().NATSAddr; addr != "" {
		t.Fatalf("the embedded NATS server listens on %q by default; it must stay in-process unless --nats-addr is given", addr)
	}
}

// The check is not vacuous: a listener this process opens is seen.
func TestListeningSocketsSeesOwnListeners(t *testing.T) {
	before := listeningSockets(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	if opened := newListeners(t, before); len(opened) != 1 {
		t.Fatalf("opened listeners seen: %v, want the one on %s", opened, lis.Addr())
	}
}
