package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
)

// rolloutRow is an ImageRollout in progress, for the overview.
type rolloutRow struct {
	Key            types.NamespacedName
	Target, Stage  string
	Phase, Message string
}

// inProgress tells whether a rollout is moving (or stuck): its target is not its last good,
// or it halted.
func inProgress(ro *v1alpha1.ImageRollout) bool {
	return ro.Status.Halted || (ro.Status.Target != nil && !ro.Status.Target.Equal(ro.Status.LastGood))
}

// currentStage is the first stage that has not passed.
func currentStage(ro *v1alpha1.ImageRollout) *v1alpha1.StageStatus {
	for i := range ro.Status.Stages {
		if ro.Status.Stages[i].State != v1alpha1.StageSucceeded {
			return &ro.Status.Stages[i]
		}
	}
	return nil
}

// rolloutsInProgress are the user's ImageRollouts that have not finished.
func (s *Server) rolloutsInProgress(_ context.Context, sess *session) []rolloutRow {
	var rows []rolloutRow
	for _, ro := range sess.store.allRollouts() {
		if !inProgress(ro) {
			continue
		}
		r := rolloutRow{Key: types.NamespacedName{Namespace: ro.Namespace, Name: ro.Name}, Target: ro.Status.Target.String()}
		if st := currentStage(ro); st != nil {
			r.Stage, r.Phase, r.Message = st.Name, st.State, st.Message
		}
		rows = append(rows, r)
	}
	return rows
}

type stageView struct {
	Name, State, Image, Message, ApprovedBy string
	Ready, Total                            int32
	Gates                                   []string
	BakeLeft                                string
	CanApprove                              bool
	Runs                                    []*row
}

type rolloutData struct {
	Rollout   *v1alpha1.ImageRollout
	Ready     string
	Message   string
	Target    string
	LastGood  string
	Stages    []stageView
	Unstaged  []*row
	Freeze    []string
	OnFailure string
}

func (s *Server) rolloutPage(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	if err := sess.waitReady(r.Context()); err != nil {
		s.render(w, r, "missing", http.StatusOK, page{Title: "Error", User: sess.user, Data: err.Error()})
		return
	}
	ro := sess.store.rollout(key)
	if ro == nil {
		s.render(w, r, "missing", http.StatusNotFound, page{Title: "Not found", User: sess.user,
			Data: fmt.Sprintf("There is no ImageRollout %s that you may read.", key)})
		return
	}
	now := s.opts.Now()
	data := rolloutData{Rollout: ro, Target: ro.Status.Target.String(), LastGood: ro.Status.LastGood.String(), OnFailure: ro.Spec.OnFailure}
	if c := apimeta.FindStatusCondition(ro.Status.Conditions, meta.ReadyCondition); c != nil {
		data.Ready, data.Message = string(c.Status), c.Message
	}
	for _, fw := range ro.Spec.FreezeWindows {
		tz := fw.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		data.Freeze = append(data.Freeze, fmt.Sprintf("%s for %s (%s)", fw.Schedule, fw.Duration.Duration, tz))
	}
	// The KCLRuns of each stage, as the runs' status.imageRollouts says (the rollout writes
	// it), among those the user may read.
	id := key.String()
	byStage := map[string][]*row{}
	for _, rw := range sess.store.all() {
		for _, rr := range rw.Rollouts {
			if rr.Rollout == id {
				byStage[rr.Stage] = append(byStage[rr.Stage], rw)
			}
		}
	}
	status := map[string]v1alpha1.StageStatus{}
	for _, st := range ro.Status.Stages {
		status[st.Name] = st
	}
	for _, spec := range ro.Spec.Stages {
		st := status[spec.Name]
		v := stageView{Name: spec.Name, State: st.State, Image: st.Image.String(), Message: st.Message, ApprovedBy: st.ApprovedBy,
			Ready: st.Ready, Total: st.Total, Runs: byStage[spec.Name]}
		if v.State == "" {
			v.State = v1alpha1.StagePending
		}
		if v.Image == "" {
			v.Image = data.LastGood
		}
		if b := spec.BakeDuration(); b > 0 {
			v.Gates = append(v.Gates, "bake "+b.String())
			if st.State == v1alpha1.StageBaking && st.ReadyAt != nil {
				left := st.ReadyAt.Add(b).Sub(now).Round(time.Minute)
				v.BakeLeft = duration.HumanDuration(max(left, 0))
			}
		}
		if spec.Approval {
			v.Gates = append(v.Gates, "approval")
		}
		if len(ro.Spec.FreezeWindows) > 0 {
			v.Gates = append(v.Gates, "freeze windows")
		}
		v.CanApprove = spec.Approval && st.State == v1alpha1.StageAwaitingApproval && ro.Status.Target != nil
		data.Stages = append(data.Stages, v)
	}
	data.Unstaged = byStage[""]
	s.render(w, r, "rollout", http.StatusOK, page{Title: id, Nav: "overview", User: sess.user, Live: "/live", Data: data})
}

// rolloutAction runs an ImageRollout page's button as the user: approve (the form's stage),
// suspend or resume, through runaction as the CLI's verbs.
func (s *Server) rolloutAction(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	ctx, cancel := requestContext(r)
	defer cancel()
	var msg string
	var err error
	switch action := r.PathValue("action"); action {
	case "approve":
		msg, err = approveStage(ctx, sess, key, r.PostFormValue("stage"))
	case "suspend", "resume":
		msg, err = suspendRollout(ctx, sess, key, action == "suspend")
	default:
		err = fmt.Errorf("unknown action %q", action)
	}
	writeResult(w, msg, err)
}

// approveStage approves the stage for the rollout's current target (runaction.Approve),
// naming the user the apiserver knows the session as.
func approveStage(ctx context.Context, sess *session, key types.NamespacedName, stage string) (string, error) {
	ro := &v1alpha1.ImageRollout{}
	if err := sess.client.Get(ctx, key, ro); err != nil {
		return "", refused("reading ImageRollout "+key.String(), err)
	}
	if stage == "" {
		// The page names the stage of its button: never approve another one in its place.
		return "", fmt.Errorf("ImageRollout %s: the request names no stage", key)
	}
	by, err := whoAmI(ctx, sess)
	if err != nil {
		return "", err
	}
	approval, err := runaction.Approve(ctx, sess.client, ro, stage, by)
	var notApprovable *runaction.NotApprovableError
	if errors.As(err, &notApprovable) {
		return "", fmt.Errorf("ImageRollout %s: %w", key, err)
	}
	if err != nil {
		return "", refused(fmt.Sprintf("approving stage %s of ImageRollout %s", stage, key), err)
	}
	return fmt.Sprintf("Stage %s approved for %s by %s", stage, approval.Target, approval.By), nil
}

// suspendRollout sets spec.suspend of the rollout (runaction.SetSuspend); resuming requests
// a reconcile too.
func suspendRollout(ctx context.Context, sess *session, key types.NamespacedName, suspend bool) (string, error) {
	ro := &v1alpha1.ImageRollout{}
	if err := sess.client.Get(ctx, key, ro); err != nil {
		return "", refused("reading ImageRollout "+key.String(), err)
	}
	doing := "resuming"
	if suspend {
		doing = "suspending"
	}
	if _, err := runaction.SetSuspend(ctx, sess.client, ro, suspend); err != nil {
		return "", refused(fmt.Sprintf("%s ImageRollout %s", doing, key), err)
	}
	if suspend {
		return "ImageRollout suspended", nil
	}
	return "ImageRollout resumed; a reconcile is requested", nil
}

// whoAmI is the user name the apiserver authenticates the session as (runaction.WhoAmI),
// else the name the view shows.
func whoAmI(ctx context.Context, sess *session) (string, error) {
	user, err := runaction.WhoAmI(ctx, sess.client)
	if err != nil {
		return "", refused("asking the cluster who you are (SelfSubjectReview)", err)
	}
	if user == "" {
		user = strings.TrimSpace(sess.user)
	}
	return user, nil
}
