package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/inventorytree"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runevents"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

type conditionView struct {
	Type, Status, Reason, Message, Location string
	Changed                                 metav1.Time
}

type imageView struct{ Move, Policy, Location string }

type eventView struct {
	Age, Type, Reason, Object, Message string
}

type treeView struct {
	Object   string
	Health   string
	Detail   string
	Children []*treeView
}

type historyView struct {
	Digest, Status, Revision, Duration string
	First, Last                        metav1.Time
	Total                              int64
}

type runData struct {
	Run        *v1alpha1.KCLRun
	State      runstatus.State
	Source     string
	Conditions []conditionView
	Images     []imageView
	Tree       *treeView
	TreeErr    string
	Events     []eventView
	EventsErr  string
	History    []historyView
}

// healthChecked bounds how many objects of a tree the page reads for their health.
const healthChecked = 300

func (s *Server) kclrun(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	if err := sess.waitReady(r.Context()); err != nil {
		s.render(w, r, "missing", http.StatusOK, page{Title: "Error", User: sess.user, Data: err.Error()})
		return
	}
	run := sess.store.get(key)
	if run == nil {
		s.notReadable(w, r, sess, key)
		return
	}
	ctx, cancel := requestContext(r)
	defer cancel()
	data := runData{Run: run, State: runstatus.Of(run)}
	ref := run.Spec.SourceRef
	data.Source = fmt.Sprintf("%s %s/%s", ref.Kind, run.SourceNamespace(), ref.Name)
	for _, c := range run.Status.Conditions {
		data.Conditions = append(data.Conditions, conditionView{
			Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			Location: runstatus.Location(c.Message), Changed: c.LastTransitionTime,
		})
	}
	for _, img := range run.Status.Images {
		data.Images = append(data.Images, imageView{Move: runstatus.ImageMove(img), Policy: img.Policy, Location: img.Location})
	}
	for _, h := range run.Status.History {
		data.History = append(data.History, historyView{
			Digest: runstatus.TruncateHex(h.Digest), Status: h.LastReconciledStatus,
			Revision: runstatus.TruncateHex(h.Metadata["revision"]), Duration: h.LastReconciledDuration.Duration.String(),
			First: h.FirstReconciled, Last: h.LastReconciled, Total: h.TotalReconciliations,
		})
	}
	if root, err := inventorytree.Build(ctx, sess.client, run); err != nil {
		data.TreeErr = reason(err)
	} else {
		budget := healthChecked
		data.Tree = s.treeOf(ctx, sess, root, &budget)
	}
	if events, err := runevents.List(ctx, sess.client, key); err != nil {
		data.EventsErr = reason(err)
	} else {
		now := s.opts.Now()
		for _, e := range events {
			msg := e.Message
			if e.Reason == v1alpha1.ImageUpdatedReason {
				msg = runevents.ImageMove(msg)
			}
			data.Events = append(data.Events, eventView{
				Age: runevents.Age(e, now), Type: e.Type, Reason: e.Reason,
				Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, Message: msg,
			})
		}
	}
	s.render(w, r, "kclrun", http.StatusOK, page{
		Title: key.String(), Nav: "kclruns", User: sess.user,
		Live: "/live?namespace=" + urlEscape(key.Namespace) + "&name=" + urlEscape(key.Name),
		Data: data,
	})
}

// treeOf reads each object's health (kstatus) as the user. A Secret is never read: its
// data must not pass through the view, and a Secret that exists is always Current.
func (s *Server) treeOf(ctx context.Context, sess *session, n *inventorytree.Node, budget *int) *treeView {
	v := &treeView{Object: ssautils.FmtObjMetadata(n.ID)}
	switch {
	case n.ID.GroupKind.Group == "" && n.ID.GroupKind.Kind == "Secret":
		v.Health = string(status.CurrentStatus)
	case *budget <= 0:
		v.Health, v.Detail = "", "not checked"
	default:
		*budget--
		version := n.Version
		if version == "" {
			version = "v1"
		}
		u, err := inventorytree.Get(ctx, sess.client, n.ID, version)
		switch {
		case err != nil:
			v.Health, v.Detail = string(status.UnknownStatus), reason(err)
		case u == nil:
			v.Health = string(status.NotFoundStatus)
		default:
			res, err := status.Compute(u)
			if err != nil {
				v.Health, v.Detail = string(status.UnknownStatus), err.Error()
			} else {
				v.Health, v.Detail = string(res.Status), res.Message
			}
		}
	}
	for _, c := range n.Children {
		v.Children = append(v.Children, s.treeOf(ctx, sess, c, budget))
	}
	return v
}

// actionResult is what the page's script shows after a button.
type actionResult struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// act runs a button's action as the user: reconcile, reconcile-with-source, suspend, resume.
// A refused action answers with the apiserver's reason.
func (s *Server) act(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	ctx, cancel := requestContext(r)
	defer cancel()
	msg, err := s.runAction(ctx, sess, key, r.PathValue("action"))
	writeResult(w, msg, err)
}

// writeResult answers a button: what was done, or the refusal with the apiserver's status.
func writeResult(w http.ResponseWriter, msg string, err error) {
	res, code := actionResult{OK: true, Message: msg}, http.StatusOK
	if err != nil {
		res, code = actionResult{Message: err.Error()}, statusOf(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(res)
}

func (s *Server) runAction(ctx context.Context, sess *session, key types.NamespacedName, action string) (string, error) {
	run := &v1alpha1.KCLRun{}
	if err := sess.client.Get(ctx, key, run); err != nil {
		return "", refused(fmt.Sprintf("reading KCLRun %s", key), err)
	}
	switch action {
	case "reconcile", "reconcile-with-source":
		if run.Spec.Suspend {
			return "", fmt.Errorf("KCLRun %s is suspended: resume it first", key)
		}
		if action == "reconcile-with-source" {
			src, gvk, err := runaction.Source(run)
			if err != nil {
				return "", err
			}
			if _, err := runaction.RequestReconcile(ctx, sess.client, src, gvk); err != nil {
				return "", refused(fmt.Sprintf("annotating %s %s", gvk.Kind, src), err)
			}
		}
		at, err := runaction.RequestReconcile(ctx, sess.client, key, runaction.KCLRunKind)
		if err != nil {
			return "", refused(fmt.Sprintf("annotating KCLRun %s", key), err)
		}
		if action == "reconcile-with-source" {
			return "Reconcile of the source and the KCLRun requested at " + at, nil
		}
		return "Reconcile requested at " + at, nil
	case "suspend", "resume":
		suspend := action == "suspend"
		if _, err := runaction.SetSuspend(ctx, sess.client, run, suspend); err != nil {
			return "", refused(fmt.Sprintf("%s KCLRun %s", strings.TrimSuffix(action, "e")+"ing", key), err)
		}
		if suspend {
			return "KCLRun suspended", nil
		}
		return "KCLRun resumed; a reconcile is requested", nil
	}
	return "", fmt.Errorf("unknown action %q", action)
}

// reason is the apiserver's own words for a refusal ("kclruns.krm.kcl.dev.fluxcd "web" is
// forbidden: User "bob" cannot patch ..."), or the error.
func reason(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

// refusal is an action the apiserver refused: what was being done, in the apiserver's words.
type refusal struct {
	doing string
	err   error
}

func (e *refusal) Error() string { return e.doing + ": " + reason(e.err) }
func (e *refusal) Unwrap() error { return e.err }

func refused(doing string, err error) error { return &refusal{doing: doing, err: err} }

// statusOf is the HTTP status of a refused action: the apiserver's, else 422.
func statusOf(err error) int {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code != 0 {
		return int(status.Status().Code)
	}
	return http.StatusUnprocessableEntity
}
