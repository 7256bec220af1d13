package k8s

import (
	"slices"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestFetchJob: the fetch Job fills the inputs volume for the suite job.yaml
// runs, and job.yaml's pods read that volume, read-only, with --cache.
func TestFetchJob(t *testing.T) {
	var job, fetch batchv1.Job
	var pvc corev1.PersistentVolumeClaim
	decode(t, "job.yaml", &job)
	decode(t, "fetch-job.yaml", &fetch)
	decode(t, "inputs-pvc.yaml", &pvc)
	fc := fetch.Spec.Template.Spec.Containers[0]
	jc := job.Spec.Template.Spec.Containers[0]
	if len(fc.Args) < 5 || fc.Args[0] != "eval" || fc.Args[1] != "fetch" || fc.Args[2] != jc.Args[1] {
		t.Fatalf("fetch args %q: want eval fetch %s", fc.Args, jc.Args[1])
	}
	cacheOf := func(args []string) string {
		i := slices.Index(args, "--cache")
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("args %q lack --cache DIR", args)
		}
		return args[i+1]
	}
	dir := cacheOf(fc.Args)
	if cacheOf(jc.Args) != dir {
		t.Errorf("job reads inputs from %s, fetch writes them to %s", cacheOf(jc.Args), dir)
	}
	mountOf := func(pod corev1.PodSpec, c corev1.Container) (corev1.VolumeMount, string) {
		for _, m := range c.VolumeMounts {
			if m.MountPath == dir {
				for _, v := range pod.Volumes {
					if v.Name == m.Name && v.PersistentVolumeClaim != nil {
						return m, v.PersistentVolumeClaim.ClaimName
					}
				}
			}
		}
		t.Fatalf("no volume mounted at %s", dir)
		return corev1.VolumeMount{}, ""
	}
	fm, fclaim := mountOf(fetch.Spec.Template.Spec, fc)
	jm, jclaim := mountOf(job.Spec.Template.Spec, jc)
	if fclaim != pvc.Name || jclaim != pvc.Name {
		t.Errorf("claims %s and %s, want %s", fclaim, jclaim, pvc.Name)
	}
	if fm.ReadOnly || !jm.ReadOnly {
		t.Errorf("fetch mount read-only %v, eval mount read-only %v: want false, true", fm.ReadOnly, jm.ReadOnly)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("inputs pvc access modes %v: pods on several nodes read it", pvc.Spec.AccessModes)
	}
}
