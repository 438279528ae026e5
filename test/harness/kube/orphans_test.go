package kube_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

const orphanHelperEnv = "KUBE_HARNESS_ORPHAN_HELPER"

// TestControlPlaneDiesWithItsParent kills a process that started an Env without stopping it
// and checks that its apiserver goes away too.
func TestControlPlaneDiesWithItsParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second control plane")
	}
	// This failed (and was left out of make test as a kernel limit) while envtest took the
	// binaries from KUBEBUILDER_ASSETS instead of the guarded wrappers.
	g := NewWithT(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanHelper$")
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cmd.Start()).To(Succeed())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	// The helper prints its kubeconfig, which it never removes since it never stops.
	var kubeconfig string
	var said []string // the helper's test output, to show why it failed
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if path, ok := strings.CutPrefix(lines.Text(), "kubeconfig="); ok {
			kubeconfig = path
			break
		}
		said = append(said, lines.Text())
	}
	g.Expect(kubeconfig).NotTo(BeEmpty(), "helper did not start an Env; it said:\n%s", strings.Join(said, "\n"))
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	cfg.Timeout = 5 * time.Second
	c, err := client.New(cfg, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	var nss corev1.NamespaceList
	g.Expect(c.List(context.Background(), &nss)).To(Succeed())

	g.Expect(cmd.Process.Kill()).To(Succeed())
	_ = cmd.Wait()
	g.Eventually(func() error {
		return c.List(context.Background(), &nss)
	}, time.Minute, 200*time.Millisecond).Should(HaveOccurred())
	_ = os.RemoveAll(strings.TrimSuffix(kubeconfig, "/kubeconfig"))
}

// TestOrphanHelper is the child process of TestControlPlaneDiesWithItsParent.
func TestOrphanHelper(t *testing.T) {
	if os.Getenv(orphanHelperEnv) == "" {
		t.Skip("helper process only")
	}
	env, err := kube.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("kubeconfig=" + env.Kubeconfig() + "\n")
	select {} // wait to be killed
}
