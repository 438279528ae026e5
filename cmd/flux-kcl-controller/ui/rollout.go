package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	authenticationv1 "k8s.io/api/authentication/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
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

// approve sets the stage's approval annotation (v1alpha1.ApprovalAnnotation) for the
// rollout's current target, as the user, naming the user the apiserver knows them as.
func (s *Server) approve(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	stage := r.PostFormValue("stage")
	ctx, cancel := requestContext(r)
	defer cancel()
	msg, err := s.approveStage(ctx, sess, key, stage)
	writeResult(w, msg, err)
}

func (s *Server) approveStage(ctx context.Context, sess *session, key types.NamespacedName, stage string) (string, error) {
	ro := &v1alpha1.ImageRollout{}
	if err := sess.client.Get(ctx, key, ro); err != nil {
		return "", refused("reading ImageRollout "+key.String(), err)
	}
	if ro.Status.Target == nil {
		return "", fmt.Errorf("ImageRollout %s has no target to approve", key)
	}
	found := false
	for _, st := range ro.Spec.Stages {
		found = found || (st.Name == stage && st.Approval)
	}
	if !found {
		return "", fmt.Errorf("ImageRollout %s has no stage %q that waits for an approval", key, stage)
	}
	target := ro.Status.Target.String()
	approval := v1alpha1.Approval{Target: target, By: whoAmI(ctx, sess), At: metav1.NewTime(time.Now())}
	patch := client.MergeFrom(ro.DeepCopy())
	annotations := ro.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[v1alpha1.ApprovalAnnotation(stage)] = approval.Encode()
	ro.SetAnnotations(annotations)
	if err := sess.client.Patch(ctx, ro, patch); err != nil {
		return "", refused(fmt.Sprintf("approving stage %s of ImageRollout %s", stage, key), err)
	}
	return fmt.Sprintf("Stage %s approved for %s by %s", stage, target, approval.By), nil
}

// whoAmI is the user name the apiserver authenticates the session as (a SelfSubjectReview),
// else the name the view shows.
func whoAmI(ctx context.Context, sess *session) string {
	review := &authenticationv1.SelfSubjectReview{}
	if err := sess.client.Create(ctx, review); err == nil && review.Status.UserInfo.Username != "" {
		return review.Status.UserInfo.Username
	}
	return strings.TrimSpace(sess.user)
}
