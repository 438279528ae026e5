package memorylimit

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestParseSize(t *testing.T) {
	g := NewWithT(t)
	for in, want := range map[string]int64{
		"400MiB": 400 << 20, "400Mi": 400 << 20, "1GiB": 1 << 30, "1G": 1e9, "512B": 512, "4096": 4096,
	} {
		n, err := ParseSize(in)
		g.Expect(err).NotTo(HaveOccurred(), in)
		g.Expect(n).To(Equal(want), in)
	}
	for _, in := range []string{"lots", "-1Mi", "0"} {
		_, err := ParseSize(in)
		g.Expect(err).To(HaveOccurred(), in)
	}
}

func TestResolveOrder(t *testing.T) {
	g := NewWithT(t)
	cgroup := func(n int64) func() (int64, error) { return func() (int64, error) { return n, nil } }
	c := DefaultConfig(400 << 20)

	r, _ := c.resolve("300MiB", cgroup(1<<30))
	g.Expect(r.Source).To(Equal("GOMEMLIMIT"), "the runtime's own setting wins")

	r, _ = c.resolve("", cgroup(1<<30))
	g.Expect(r.Source).To(Equal("cgroup"))
	g.Expect(r.Bytes).To(BeNumerically("~", 0.9*(1<<30), 1))

	r, _ = c.resolve("", cgroup(0))
	g.Expect(r).To(Equal(Result{Bytes: 400 << 20, Source: "fallback"}))

	r, _ = DefaultConfig(0).resolve("", cgroup(0))
	g.Expect(r.Bytes).To(BeZero())

	c.Limit = "256Mi"
	r, _ = c.resolve("", cgroup(1<<30))
	g.Expect(r).To(Equal(Result{Bytes: 256 << 20, Source: "flag"}))

	c.Limit = "off"
	r, _ = c.resolve("", cgroup(1<<30))
	g.Expect(r).To(Equal(Result{Source: "off"}))

	c.Limit = "much"
	_, err := c.resolve("", cgroup(0))
	g.Expect(err).To(HaveOccurred())
}

// writeTree writes files under a temporary root standing for "/".
func writeTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCgroupV2Container(t *testing.T) {
	g := NewWithT(t)
	// A container: its cgroup namespace makes its own cgroup the root.
	root := writeTree(t, map[string]string{
		"proc/self/cgroup":         "0::/\n",
		"proc/self/mountinfo":      "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/memory.max": "536870912\n",
	})
	g.Expect(cgroupLimitUnder(root)).To(Equal(int64(512 << 20)))
}

func TestCgroupV2ParentLimit(t *testing.T) {
	g := NewWithT(t)
	root := writeTree(t, map[string]string{
		"proc/self/cgroup":                           "0::/kubepods/pod1/ctr\n",
		"proc/self/mountinfo":                        "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.max": "max\n",
		"sys/fs/cgroup/kubepods/pod1/memory.max":     "1073741824\n",
		"sys/fs/cgroup/kubepods/memory.max":          "max\n",
	})
	g.Expect(cgroupLimitUnder(root)).To(Equal(int64(1 << 30)))
}

func TestCgroupV1(t *testing.T) {
	g := NewWithT(t)
	files := map[string]string{
		"proc/self/cgroup": "4:memory:/process_api/abc\n0::/\n",
		"proc/self/mountinfo": "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
			"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "9223372036854771712\n",
	}
	g.Expect(cgroupLimitUnder(writeTree(t, files))).To(BeZero(), "v1's no-limit value")

	files["sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes"] = "268435456\n"
	g.Expect(cgroupLimitUnder(writeTree(t, files))).To(Equal(int64(256 << 20)))
}

func TestNoCgroupFiles(t *testing.T) {
	g := NewWithT(t)
	g.Expect(cgroupLimitUnder(t.TempDir())).To(BeZero())
}
