package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

//go:embed imagerollout.yaml
var rolloutManifests string

const (
	// canaryNamespace is where the rollout's first stage runs.
	canaryNamespace = "demo-canary"
	// rolloutTag is the election the demo rolls out in stages.
	rolloutTag = "1.8.0"
)

// rollOut delivers the program to demo-canary too, puts an ImageRollout on the policy, and
// elects a new image: demo-canary gets it first, demo once demo-canary has baked for 5s.
func (d *demo) rollOut() error {
	step("an ImageRollout of demo/nginx: namespace demo-canary first, the rest after a 5s bake")
	fmt.Print(indent(stripComments(rolloutManifests)))
	objects, err := decode(rolloutManifests)
	if err != nil {
		return err
	}
	var rollout *kclv1.ImageRollout
	for _, obj := range objects {
		if ro, ok := obj.(*kclv1.ImageRollout); ok {
			rollout = ro
			continue // once demo-canary's KCLRun follows the policy: a stage must select someone
		}
		if err := d.c.Create(d.ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	if rollout == nil {
		return errors.New("imagerollout.yaml must hold an ImageRollout")
	}
	if err := d.waitImage(canaryNamespace, "nginx:1.7.9"); err != nil {
		return err
	}
	if err := d.poll(func() (bool, error) {
		var run kclv1.KCLRun
		if err := d.c.Get(d.ctx, client.ObjectKey{Namespace: canaryNamespace, Name: name}, &run); err != nil {
			return false, nil
		}
		return slices.Contains(run.Status.ImagePolicies, namespace+"/"+policyName), nil
	}); err != nil {
		return fmt.Errorf("waiting for KCLRun %s/%s to follow ImagePolicy %s/%s: %w", canaryNamespace, name, namespace, policyName, err)
	}
	if err := d.c.Create(d.ctx, rollout); err != nil {
		return fmt.Errorf("creating ImageRollout %s: %w", rollout.Name, err)
	}
	if err := d.poll(func() (bool, error) {
		if err := d.c.Get(d.ctx, client.ObjectKeyFromObject(rollout), rollout); err != nil {
			return false, nil
		}
		return apimeta.IsStatusConditionTrue(rollout.Status.Conditions, meta.ReadyCondition), nil
	}); err != nil {
		return fmt.Errorf("waiting for ImageRollout %s/%s to be Ready: %w", namespace, rollout.Name, err)
	}
	ready := apimeta.FindStatusCondition(rollout.Status.Conditions, meta.ReadyCondition)
	fmt.Printf("  ImageRollout %s/%s Ready=%s %s: %s (creating it moved nothing)\n", namespace, rollout.Name, ready.Status, ready.Reason, ready.Message)

	step("ImagePolicy demo/nginx: latestRef nginx:1.7.9 → nginx:" + rolloutTag + ", no commit")
	var policy imagev1.ImagePolicy
	if err := d.c.Get(d.ctx, client.ObjectKey{Namespace: namespace, Name: policyName}, &policy); err != nil {
		return fmt.Errorf("reading ImagePolicy %s/%s: %w", namespace, policyName, err)
	}
	written := time.Now()
	if err := imagepolicy.SetLatest(d.ctx, d.c, &policy, imagev1.ImageRef{Name: "nginx", Tag: rolloutTag}); err != nil {
		return err
	}
	target := "nginx:" + rolloutTag
	if err := d.waitImage(canaryNamespace, target); err != nil {
		return err
	}
	canaryAt := time.Now()
	rest, err := d.image(namespace)
	if err != nil {
		return err
	}
	fmt.Printf("  %s/nginx-deployment-1 runs %s after %s; %s/nginx-deployment-1 still runs %s: the rollout holds it back\n",
		canaryNamespace, target, ms(canaryAt.Sub(written)), namespace, rest)
	d.printCLI("get", "imagerollouts", "-n", namespace)
	d.waitHeld(target)
	d.printCLI("get", "kclruns", "-n", namespace)
	if err := d.waitImage(namespace, target); err != nil {
		return err
	}
	restAt := time.Now()
	fmt.Printf("  %s/nginx-deployment-1 runs %s, %s after %s\n", namespace, target, ms(restAt.Sub(canaryAt)), canaryNamespace)
	if err := d.poll(func() (bool, error) {
		if err := d.c.Get(d.ctx, client.ObjectKeyFromObject(rollout), rollout); err != nil {
			return false, nil
		}
		return rollout.Status.LastGood.String() == target, nil
	}); err != nil {
		return fmt.Errorf("waiting for ImageRollout %s/%s to complete: %w", namespace, rollout.Name, err)
	}
	if canary, rest := rollout.StageStatus("canary"), rollout.StageStatus("rest"); canary != nil && canary.ReadyAt != nil && rest != nil && rest.AdmittedAt != nil {
		fmt.Printf("  stage canary Ready at %s, stage rest admitted at %s (bake 5s; status times are to the second)\n",
			canary.ReadyAt.UTC().Format(time.TimeOnly), rest.AdmittedAt.UTC().Format(time.TimeOnly))
	}
	d.printCLI("get", "imagerollouts", "-n", namespace)
	d.printRolloutEvents(rollout.Name)
	return nil
}

// waitHeld waits a little until demo's KCLRun says the rollout holds it back from target,
// so that get kclruns shows it; the canary's bake may end first.
func (d *demo) waitHeld(target string) {
	const heldWait = 3 * time.Second
	_ = wait.PollUntilContextTimeout(d.ctx, pollInterval, heldWait, true, func(ctx context.Context) (bool, error) {
		var run kclv1.KCLRun
		if err := d.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &run); err != nil {
			return false, nil
		}
		for _, given := range run.Status.ImageRollouts {
			if given.HeldBack == target || given.Image == target {
				return true, nil
			}
		}
		return false, nil
	})
}

// image is the image of nginx-deployment-1 in ns.
func (d *demo) image(ns string) (string, error) {
	var dep appsv1.Deployment
	if err := d.c.Get(d.ctx, client.ObjectKey{Namespace: ns, Name: "nginx-deployment-1"}, &dep); err != nil {
		return "", fmt.Errorf("reading Deployment %s/nginx-deployment-1: %w", ns, err)
	}
	var refs []string
	for _, c := range dep.Spec.Template.Spec.Containers {
		refs = append(refs, c.Image)
	}
	return strings.Join(refs, ","), nil
}

// waitImage waits until nginx-deployment-1 in ns runs image.
func (d *demo) waitImage(ns, image string) error {
	var last string
	err := d.poll(func() (bool, error) {
		got, err := d.image(ns)
		last = got
		return err == nil && got == image, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Deployment %s/nginx-deployment-1 to run %s, last seen %q: %w", ns, image, last, err)
	}
	return nil
}

// printCLI runs flux-kcl-controller ARGS in this process against the demo cluster and
// prints its output as a terminal would show it.
func (d *demo) printCLI(args ...string) {
	var out bytes.Buffer
	root := cli.NewRootCommand(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &out})
	cli.Execute(root, append([]string{"--kubeconfig", d.env.Kubeconfig()}, args...), &out)
	fmt.Printf("  $ flux-kcl-controller %s\n%s", strings.Join(args, " "), indent(out.String()))
}

// printRolloutEvents prints the rollout's events, oldest first: the stages' way to the
// target. Events are delivered asynchronously: it waits a little for the last one.
func (d *demo) printRolloutEvents(name string) {
	const eventWait = 10 * time.Second
	var found []corev1.Event
	_ = wait.PollUntilContextTimeout(d.ctx, pollInterval, eventWait, true, func(ctx context.Context) (bool, error) {
		var events corev1.EventList
		if err := d.c.List(ctx, &events, client.InNamespace(namespace)); err != nil {
			return false, nil
		}
		found = found[:0]
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == kclv1.ImageRolloutKind && e.InvolvedObject.Name == name {
				found = append(found, e)
			}
		}
		for _, e := range found {
			if e.Reason == kclv1.RolloutCompletedReason && strings.Contains(e.Message, rolloutTag) {
				return true, nil
			}
		}
		return false, nil
	})
	// Event times are to the second, and the watcher records them concurrently: within one
	// second the completion goes last, the others by name.
	sort.SliceStable(found, func(i, j int) bool {
		ti, tj := eventTime(found[i]), eventTime(found[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		if last := kclv1.RolloutCompletedReason; (found[i].Reason == last) != (found[j].Reason == last) {
			return found[j].Reason == last // the completion ends a rollout
		}
		return found[i].Name < found[j].Name
	})
	fmt.Printf("  events of ImageRollout %s/%s:\n", namespace, name)
	for _, e := range found {
		fmt.Printf("    %-7s %-17s %s\n", e.Type, e.Reason, e.Message)
	}
}

// eventTime is when an event was first seen, whichever field its recorder set.
func eventTime(e corev1.Event) time.Time {
	if !e.EventTime.IsZero() {
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}
