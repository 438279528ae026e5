package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

func step(msg string) { fmt.Printf("==> %s\n", msg) }

// printReady prints the KCLRun's Ready condition as the last wait saw it.
func (d *demo) printReady() {
	if ready := apimeta.FindStatusCondition(d.run.Status.Conditions, meta.ReadyCondition); ready != nil {
		fmt.Printf("  KCLRun %s/%s Ready=%s %s: %s\n", namespace, name, ready.Status, ready.Reason, ready.Message)
	}
}

// printLastCommit prints the last commit's subject and changed lines.
func (d *demo) printLastCommit() error {
	out, err := d.repo.Git("show", "--format=commit %h \"%s\"", "--unified=0", "--no-color", "HEAD")
	if err != nil {
		return err
	}
	for i, line := range strings.Split(out, "\n") {
		changed := (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) &&
			!strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "+++")
		if i == 0 || changed {
			fmt.Printf("  %s\n", line)
		}
	}
	return nil
}

// printImageEvent prints the event the applier records for an image an ImagePolicy moved,
// the audit trail without Git. Events are delivered asynchronously: it waits a little.
func (d *demo) printImageEvent() {
	const eventWait = 10 * time.Second
	var found *corev1.Event
	_ = wait.PollUntilContextTimeout(d.ctx, pollInterval, eventWait, true, func(ctx context.Context) (bool, error) {
		var events corev1.EventList
		if err := d.c.List(ctx, &events, client.InNamespace(namespace)); err != nil {
			return false, nil
		}
		for i, e := range events.Items {
			if e.InvolvedObject.Kind == kclv1.KCLRunKind && e.InvolvedObject.Name == name &&
				e.Reason == "ImageUpdated" && strings.Contains(e.Message, "nginx:1.7.9") {
				found = &events.Items[i]
				return true, nil
			}
		}
		return false, nil
	})
	if found == nil {
		fmt.Printf("  (no ImageUpdated event on the KCLRun within %s)\n", eventWait)
		return
	}
	fmt.Printf("  event %s %s: %s\n", found.Type, found.Reason, found.Message)
}

// printDeployments prints the namespace's Deployments as `kubectl get deployments -o wide`
// would, name and images.
func (d *demo) printDeployments() error {
	images, err := d.deployments()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(images))
	for name := range images {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Printf("  $ kubectl get deployments -n %s   (stored only: no kubelet runs here, no pods start)\n  %-22s %s\n", namespace, "NAME", "IMAGES")
	for _, name := range names {
		fmt.Printf("  %-22s %s\n", name, images[name])
	}
	return nil
}

// printPlayground tells how to look around and change things while the demo keeps running.
func (d *demo) printPlayground(sc *sourcecontroller.Controller) {
	bin := "bin"
	if root, err := kube.RepoRoot(); err == nil {
		bin = filepath.Join(root, "bin")
	}
	step("running until Ctrl-C; in another terminal:")
	fmt.Printf(`
  export KUBECONFIG=%[1]s
  export PATH=%[8]s:$PATH                        # flux-kcl-controller, built by make demo
  flux-kcl-controller get kclruns -n %[2]s
  flux-kcl-controller tree kclrun %[3]s -n %[2]s     # the applied objects
  flux-kcl-controller events kclrun %[3]s -n %[2]s   # image moves first
  kubectl get gitrepositories,kclruns,imagepolicies,deployments -n %[2]s

  # commit to the served repository (%[4]s), from the demo's working copy:
  cd %[5]s
  sed -i 's/replicas = 1/replicas = 2/' main.k
  flux-kcl-controller diff kclrun %[3]s -n %[2]s --path .   # what the commit would change
  git commit -qam "two replicas" && git push -q
  # source-controller fetches within 30s (the GitRepository's interval), or at once when asked:
  flux-kcl-controller reconcile kclrun %[3]s -n %[2]s --with-source
  kubectl get deployments -n %[2]s -o wide

  # play image-reflector-controller: elect a new image, no commit
  kubectl patch imagepolicy %[6]s -n %[2]s --subresource=status --type=merge \
    -p '{"status":{"latestRef":{"name":"nginx","tag":"1.7.10"}}}'
  flux-kcl-controller get kclruns -n %[2]s                 # the image it moved, below the table
  flux-kcl-controller get imagerollouts -n %[2]s           # the ImageRollout stages it: demo-canary, then demo after 5s

  # or clone it anywhere: git clone %[4]s
  # artifacts are served by source-controller on %[7]s

`, d.env.Kubeconfig(), namespace, name, d.repo.URL, d.repo.Dir, policyName, sc.StorageAddr, bin)
}

// decode reads a YAML stream into typed objects of the harness scheme.
func decode(text string) ([]client.Object, error) {
	decoder := serializer.NewCodecFactory(kube.Scheme()).UniversalDeserializer()
	var objects []client.Object
	for _, doc := range strings.Split(text, "\n---\n") {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		obj, _, err := decoder.Decode([]byte(doc), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("decoding kcl-deployment.yaml: %w", err)
		}
		o, ok := obj.(client.Object)
		if !ok {
			return nil, fmt.Errorf("decoding kcl-deployment.yaml: %T is not an object", obj)
		}
		objects = append(objects, o)
	}
	return objects, nil
}

// stripComments drops whole-line comments, for printing the manifests.
func stripComments(text string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// indent prefixes every line with two spaces.
func indent(text string) string {
	text = strings.TrimRight(text, "\n")
	return "  " + strings.ReplaceAll(text, "\n", "\n  ") + "\n"
}

// short is a commit hash's abbreviation.
func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
