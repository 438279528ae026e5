// Command demo is the quick start on this machine, with every part real: kube-apiserver and
// etcd, the Flux source-controller, a Git server on 127.0.0.1 holding the demo KCL program,
// and the all-in-one flux-kcl-controller.
//
// It applies a GitRepository and a KCLRun (kcl-deployment.yaml) and prints the Deployments;
// commits a change (nginx 1.7.7 → 1.7.8, nginx-deployment → nginx-deployment-1, the image
// now following the ImagePolicy demo/nginx) and prints them again, the old one pruned; then
// writes the ImagePolicy's status.latestRef (nginx:1.7.9) as image-reflector-controller would,
// and prints the Deployment following it with no commit. Last, it delivers the program to a
// second namespace, demo-canary, puts an ImageRollout on the policy (imagerollout.yaml) and
// elects nginx:1.8.0: demo-canary runs it first, demo once demo-canary has baked for 5s.
//
//	go run ./hack/demo              keeps running for you to play, until interrupted
//	DEMO_EXIT=1 go run ./hack/demo  exits 0 once the last state is reached (CI)
//
// The controller runs in this process (cmd/flux-kcl-controller/allinone), or, with
// DEMO_CONTROLLER_BIN=bin/flux-kcl-controller, as that binary's all-in-one command in a child
// process. Controller, source-controller and Git server logs go to files in a folder the demo
// prints. TestDemo runs it to the last state in `make test` (skipped under -short).
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	stdlog "log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

//go:embed program
var program embed.FS

//go:embed kcl-deployment.yaml
var delivery string

const (
	namespace = "demo"
	// name is the GitRepository's, the KCLRun's and the Git repository's.
	name = "kcl-deployment"
	// policyName is the ImagePolicy the second commit's marker names (demo:nginx).
	policyName = "nginx"
	// waitTimeout bounds each wait for the controllers; the machine may be busy.
	waitTimeout = 5 * time.Minute
	// pollInterval is also the resolution of the times the demo reports.
	pollInterval = 50 * time.Millisecond
)

// secondCommit is the change the demo commits: the quick start's new image and name, and the
// marker that hands the image's tag to the ImagePolicy.
var secondCommit = strings.NewReplacer(
	`"nginx-deployment"`, `"nginx-deployment-1"`,
	`image = "nginx:1.7.7"`, `image = "nginx:1.7.8"  # {"$imagepolicy": "demo:nginx"}`,
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := options{exitWhenDone: os.Getenv("DEMO_EXIT") == "1", controllerBin: os.Getenv("DEMO_CONTROLLER_BIN")}
	if err := run(ctx, opts); err != nil {
		if ctx.Err() != nil { // Ctrl-C before the last state: not a failure of the demo
			fmt.Fprintln(os.Stderr, "demo: interrupted")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options are the environment's settings.
type options struct {
	// exitWhenDone returns once the last state is reached (DEMO_EXIT=1).
	exitWhenDone bool
	// controllerBin runs this flux-kcl-controller binary rather than the controller in
	// this process (DEMO_CONTROLLER_BIN).
	controllerBin string
}

// demo is what run started, for the steps to share.
type demo struct {
	ctx    context.Context
	c      client.Client
	env    *kube.Env
	repo   *gitserver.Repository
	source *sourcev1.GitRepository
	run    *kclv1.KCLRun
	// controllerStopped is closed when the controller ends, which it should not do before
	// the demo; controllerErr is then why.
	controllerStopped chan struct{}
	controllerErr     error
	// sourceControllerDone is closed if source-controller ends.
	sourceControllerDone <-chan struct{}
}

// run runs the demo until the last state (opts.exitWhenDone) or until ctx ends.
func run(ctx context.Context, opts options) (err error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	logDir, err := os.MkdirTemp("", "flux-kcl-demo-logs-")
	if err != nil {
		return fmt.Errorf("creating the log folder: %w", err)
	}
	defer func() {
		if err == nil {
			_ = os.RemoveAll(logDir)
		} else {
			fmt.Fprintf(os.Stderr, "demo: logs kept in %s\n", logDir)
		}
	}()
	controllerLog, err := os.Create(filepath.Join(logDir, "flux-kcl-controller.log"))
	if err != nil {
		return fmt.Errorf("creating the controller log: %w", err)
	}
	defer controllerLog.Close()
	log := zap.New(zap.WriteTo(controllerLog))
	ctrl.SetLogger(log)

	step("starting kube-apiserver and etcd (v1.37.2)")
	env, err := kube.Start(ctx)
	if err != nil {
		return err
	}
	defer env.Stop()
	fmt.Printf("  kubeconfig: %s\n", env.Kubeconfig())
	fmt.Printf("  logs:       %s\n", logDir)

	step("serving the demo program from a Git server on 127.0.0.1")
	gitLog, err := os.Create(filepath.Join(logDir, "git-server.log"))
	if err != nil {
		return fmt.Errorf("creating the Git server log: %w", err)
	}
	defer gitLog.Close()
	stdlog.SetOutput(gitLog) // the Git server logs every request there
	defer stdlog.SetOutput(os.Stderr)
	git, err := gitserver.Start()
	if err != nil {
		return err
	}
	defer git.Stop()
	repo, err := git.NewRepository(name)
	if err != nil {
		return err
	}
	files, err := programFiles()
	if err != nil {
		return err
	}
	first, err := repo.Commit("nginx 1.7.7", files)
	if err != nil {
		return err
	}
	fmt.Printf("  repository: %s\n  commit %s \"nginx 1.7.7\": nginx-deployment, image nginx:1.7.7\n", repo.URL, short(first))

	step("starting Flux source-controller v1.9.6 (the real binary)")
	scLog, err := os.Create(filepath.Join(logDir, "source-controller.log"))
	if err != nil {
		return fmt.Errorf("creating the source-controller log: %w", err)
	}
	defer scLog.Close()
	sc, err := sourcecontroller.Start(ctx, env, sourcecontroller.Options{Log: scLog})
	if err != nil {
		return err
	}
	defer sc.Stop()
	fmt.Printf("  %s (pid %d), artifacts on %s\n", sc.Binary, sc.Pid(), sc.StorageAddr)

	step("starting the all-in-one flux-kcl-controller")
	var natsURL string
	var done <-chan error
	if bin := opts.controllerBin; bin != "" {
		natsURL, done, err = execController(ctx, bin, env, controllerLog)
	} else {
		natsURL, done, err = startController(ctx, env, log)
	}
	if err != nil {
		return err
	}
	d := &demo{ctx: ctx, c: env.Client, env: env, repo: repo, controllerStopped: make(chan struct{}), sourceControllerDone: sc.Done()}
	go func() {
		d.controllerErr = <-done
		close(d.controllerStopped)
	}()
	// Stop the controller before what it talks to.
	defer func() {
		stop()
		<-d.controllerStopped
		if err := d.controllerErr; err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "demo: controller:", err)
		}
	}()
	fmt.Printf("  NATS: %s\n", natsURL)

	if err := d.deliver(); err != nil {
		return err
	}
	if err := d.commit(); err != nil {
		return err
	}
	if err := d.followPolicy(); err != nil {
		return err
	}
	if err := d.rollOut(); err != nil {
		return err
	}

	if opts.exitWhenDone {
		step("done (DEMO_EXIT=1)")
		return nil
	}
	d.printPlayground(sc)
	<-ctx.Done()
	fmt.Println("\nstopping")
	return nil
}

// deliver applies the GitRepository and the KCLRun and waits for the first commit.
func (d *demo) deliver() error {
	step("applying the GitRepository (interval 30s) and the KCLRun (prune: true)")
	if err := d.c.Create(d.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	text := strings.ReplaceAll(delivery, "${GIT_URL}", d.repo.URL)
	fmt.Print(indent(stripComments(text)))
	objects, err := decode(text)
	if err != nil {
		return err
	}
	for _, obj := range objects {
		switch o := obj.(type) {
		case *sourcev1.GitRepository:
			d.source = o
		case *kclv1.KCLRun:
			d.run = o
		}
		if err := d.c.Create(d.ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	if d.source == nil || d.run == nil {
		return errors.New("kcl-deployment.yaml must hold a GitRepository and a KCLRun")
	}
	head, err := d.repo.Git("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	started := time.Now()
	if _, err := d.waitApplied(head); err != nil {
		return err
	}
	if err := d.waitDeployments(map[string]string{"nginx-deployment": "nginx:1.7.7"}); err != nil {
		return err
	}
	fmt.Printf("  revision %s applied %s after the KCLRun was created\n", short(head), ms(time.Since(started)))
	d.printReady()
	return d.printDeployments()
}

// commit commits the quick start's change, asks source-controller to fetch at once, and
// waits for the new Deployment and the old one's pruning.
func (d *demo) commit() error {
	step("ImagePolicy demo/nginx: latestRef nginx:1.7.8")
	fmt.Println("  no image-reflector-controller runs here: the demo writes the policy's status as it would")
	if _, err := imagepolicy.Create(d.ctx, d.c, namespace, policyName, imagev1.ImageRef{Name: "nginx", Tag: "1.7.8"}); err != nil {
		return err
	}

	step("committing: nginx 1.7.7 → 1.7.8, nginx-deployment → nginx-deployment-1, image follows demo:nginx")
	before, err := os.ReadFile(filepath.Join(d.repo.Dir, "main.k"))
	if err != nil {
		return fmt.Errorf("reading main.k: %w", err)
	}
	after := secondCommit.Replace(string(before))
	if after == string(before) {
		return errors.New("main.k no longer has the lines the demo changes")
	}
	started := time.Now()
	hash, err := d.repo.Commit("nginx 1.7.8", map[string]string{"main.k": after})
	if err != nil {
		return err
	}
	pushed := time.Now()
	if err := sourcecontroller.RequestReconcile(d.ctx, d.c, d.source); err != nil {
		return err
	}
	if err := d.printLastCommit(); err != nil {
		return err
	}
	fmt.Printf("  annotated GitRepository %s/%s with %s, as `flux reconcile source git` does\n", namespace, name, meta.ReconcileRequestAnnotation)
	fetched, err := d.waitApplied(hash)
	if err != nil {
		return err
	}
	if err := d.waitDeployments(map[string]string{"nginx-deployment-1": "nginx:1.7.8"}); err != nil {
		return err
	}
	applied := time.Now()
	d.printReady()
	if err := d.printDeployments(); err != nil {
		return err
	}
	fmt.Println("  nginx-deployment was pruned: the KCLRun has prune: true")
	fmt.Printf("  commit → applied: %s (git commit+push %s, fetch request → artifact %s, artifact → applied %s; poll every %s)\n",
		ms(applied.Sub(started)), ms(pushed.Sub(started)), ms(fetched.Sub(pushed)), ms(applied.Sub(fetched)), pollInterval)
	return nil
}

// followPolicy moves the ImagePolicy's latestRef and waits for the Deployment to follow,
// with no new commit.
func (d *demo) followPolicy() error {
	step("ImagePolicy demo/nginx: latestRef nginx:1.7.8 → nginx:1.7.9, no commit")
	fmt.Println("  no image-reflector-controller runs here: the demo writes the policy's status as it would")
	head, err := d.repo.Git("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	var policy imagev1.ImagePolicy
	if err := d.c.Get(d.ctx, client.ObjectKey{Namespace: namespace, Name: policyName}, &policy); err != nil {
		return fmt.Errorf("reading ImagePolicy %s/%s: %w", namespace, policyName, err)
	}
	written := time.Now()
	if err := imagepolicy.SetLatest(d.ctx, d.c, &policy, imagev1.ImageRef{Name: "nginx", Tag: "1.7.9"}); err != nil {
		return err
	}
	if err := d.waitDeployments(map[string]string{"nginx-deployment-1": "nginx:1.7.9"}); err != nil {
		return err
	}
	applied := time.Now()
	if err := d.printDeployments(); err != nil {
		return err
	}
	fmt.Printf("  Git still at %s; main.k still says nginx:1.7.8\n", short(head))
	fmt.Printf("  policy write → applied: %s (poll every %s)\n", ms(applied.Sub(written)), pollInterval)
	d.printImageEvent()
	return nil
}

// waitApplied waits until the KCLRun is Ready with commit applied; it returns when
// source-controller first served the commit.
func (d *demo) waitApplied(commit string) (fetched time.Time, err error) {
	err = d.poll(func() (bool, error) {
		if fetched.IsZero() {
			var src sourcev1.GitRepository
			if err := d.c.Get(d.ctx, client.ObjectKeyFromObject(d.source), &src); err == nil &&
				src.Status.Artifact != nil && strings.HasSuffix(src.Status.Artifact.Revision, commit) {
				fetched = time.Now()
			}
		}
		if err := d.c.Get(d.ctx, client.ObjectKeyFromObject(d.run), d.run); err != nil {
			return false, nil
		}
		return strings.HasSuffix(d.run.Status.LastAppliedRevision, commit) &&
			apimeta.IsStatusConditionTrue(d.run.Status.Conditions, meta.ReadyCondition), nil
	})
	if err != nil {
		if ready := apimeta.FindStatusCondition(d.run.Status.Conditions, meta.ReadyCondition); ready != nil {
			return fetched, fmt.Errorf("KCLRun %s/%s has not applied %s (Ready=%s, %s: %s): %w",
				namespace, name, short(commit), ready.Status, ready.Reason, ready.Message, err)
		}
		return fetched, fmt.Errorf("KCLRun %s/%s has not applied %s: %w", namespace, name, short(commit), err)
	}
	if fetched.IsZero() {
		fetched = time.Now() // both seen in the same poll
	}
	return fetched, nil
}

// waitDeployments waits until the namespace holds exactly the Deployments want (name →
// image of their single container).
func (d *demo) waitDeployments(want map[string]string) error {
	var last map[string]string
	err := d.poll(func() (bool, error) {
		got, err := d.deployments()
		if err != nil {
			return false, nil
		}
		last = got
		if len(got) != len(want) {
			return false, nil
		}
		for name, image := range want {
			if got[name] != image {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Deployments %v, last seen %v: %w", want, last, err)
	}
	return nil
}

// poll runs done every pollInterval until it reports true, the timeout passes, or the
// controller stops.
func (d *demo) poll(done func() (bool, error)) error {
	return wait.PollUntilContextTimeout(d.ctx, pollInterval, waitTimeout, true, func(context.Context) (bool, error) {
		select {
		case <-d.controllerStopped:
			if d.controllerErr == nil {
				return false, errors.New("the controller stopped")
			}
			return false, fmt.Errorf("the controller stopped: %w", d.controllerErr)
		case <-d.sourceControllerDone:
			return false, errors.New("source-controller stopped (see its log)")
		default:
		}
		return done()
	})
}

// deployments maps the namespace's Deployments to their containers' images.
func (d *demo) deployments() (map[string]string, error) {
	var list appsv1.DeploymentList
	if err := d.c.List(d.ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing Deployments: %w", err)
	}
	images := map[string]string{}
	for _, dep := range list.Items {
		var refs []string
		for _, c := range dep.Spec.Template.Spec.Containers {
			refs = append(refs, c.Image)
		}
		images[dep.Name] = strings.Join(refs, ",")
	}
	return images, nil
}

// programFiles reads the embedded program as repository files.
func programFiles() (map[string]string, error) {
	files := map[string]string{}
	err := fs.WalkDir(program, "program", func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		data, err := program.ReadFile(path)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(path, "program/")] = string(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the demo program: %w", err)
	}
	return files, nil
}
