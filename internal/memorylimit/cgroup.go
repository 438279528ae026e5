package memorylimit

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// unlimited is where cgroup v1 writes "no limit" (a page-rounded max int64); anything this
// large is no limit.
const unlimited = int64(1) << 60

// cgroupLimit is the memory limit of this process's cgroup, 0 when it has none.
func cgroupLimit() (int64, error) { return cgroupLimitUnder("/") }

// cgroupLimitUnder reads the limit with root as "/" (a folder of test files in tests): the
// process's cgroup from proc/self/cgroup, where its hierarchy is mounted from
// proc/self/mountinfo, then the smallest limit on the cgroup and its parents up to the mount
// (a container's limit may sit on a parent). cgroup v2 first (memory.max), then v1
// (memory.limit_in_bytes).
func cgroupLimitUnder(root string) (int64, error) {
	groups, err := readLines(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil // not Linux
		}
		return 0, err
	}
	mounts, err := readLines(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	for _, v := range []struct {
		controller, fstype, file string
	}{
		{"", "cgroup2", "memory.max"},
		{"memory", "cgroup", "memory.limit_in_bytes"},
	} {
		path, ok := cgroupPath(groups, v.controller)
		if !ok {
			continue
		}
		mountRoot, mountPoint, ok := cgroupMount(mounts, v.fstype, v.controller)
		if !ok {
			continue
		}
		rel := path
		if mountRoot != "/" {
			// In a container the mount's root is the container's own cgroup.
			rel = strings.TrimPrefix(path, mountRoot)
		}
		dir := filepath.Join(root, mountPoint, rel)
		top := filepath.Join(root, mountPoint)
		limit, found, err := smallestLimit(dir, top, v.file)
		if err != nil {
			return 0, err
		}
		if found {
			return limit, nil
		}
	}
	return 0, nil
}

// cgroupPath is the process's cgroup in the hierarchy of controller ("" for v2's unified one).
func cgroupPath(lines []string, controller string) (string, bool) {
	for _, l := range lines {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" {
			if parts[0] == "0" && parts[1] == "" {
				return parts[2], true
			}
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == controller {
				return parts[2], true
			}
		}
	}
	return "", false
}

// cgroupMount finds the mount of a cgroup hierarchy in mountinfo: its root and mount point.
func cgroupMount(lines []string, fstype, controller string) (root, point string, ok bool) {
	for _, l := range lines {
		pre, post, found := strings.Cut(l, " - ")
		if !found {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || g[0] != fstype {
			continue
		}
		if controller != "" && !hasOption(g[2], controller) {
			continue
		}
		return f[3], f[4], true
	}
	return "", "", false
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// smallestLimit reads file in dir and each parent up to top; found is false when no folder
// has the file (the controller is not enabled there).
func smallestLimit(dir, top, file string) (limit int64, found bool, err error) {
	for {
		b, rerr := os.ReadFile(filepath.Join(dir, file))
		if rerr == nil {
			found = true
			s := strings.TrimSpace(string(b))
			if s != "max" {
				n, perr := strconv.ParseInt(s, 10, 64)
				if perr != nil {
					return 0, false, fmt.Errorf("%s: %w", filepath.Join(dir, file), perr)
				}
				if n < unlimited && (limit == 0 || n < limit) {
					limit = n
				}
			}
		}
		if dir == top || len(dir) <= len(top) {
			return limit, found, nil
		}
		dir = filepath.Dir(dir)
	}
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}
