//go:build linux

package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"deskpilot/eval"
)

// decode reads a manifest strictly: an unknown or duplicated field fails.
func decode(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func TestJob(t *testing.T) {
	var job batchv1.Job
	decode(t, "job.yaml", &job)
	var pvc corev1.PersistentVolumeClaim
	decode(t, "pvc.yaml", &pvc)
	var cm corev1.ConfigMap
	decode(t, "config.yaml", &cm)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || pvc.Kind != "PersistentVolumeClaim" || cm.Kind != "ConfigMap" {
		t.Fatalf("kinds: %s %s, %s, %s", job.APIVersion, job.Kind, pvc.Kind, cm.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode = %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions < 1 || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Fatalf("completions %v, parallelism %v", s.Completions, s.Parallelism)
	}
	shards := int(*s.Completions)
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy = %q, want Never (a retry is a new pod that resumes)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	args := append(slices.Clone(c.Command), c.Args...)
	flag := func(name string) string {
		i := slices.Index(args, name)
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("args %q lack %s VALUE", args, name)
		}
		return args[i+1]
	}
	if want := fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", shards); flag("--shard") != want {
		t.Errorf("--shard %s, want %s (N must equal completions)", flag("--shard"), want)
	}
	if _, err := eval.ParseShard(strings.ReplaceAll(flag("--shard"), "$(JOB_COMPLETION_INDEX)", fmt.Sprint(shards-1))); err != nil {
		t.Errorf("the last pod's shard: %v", err)
	}
	results := flag("--resume")
	if !strings.Contains(results, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--resume %s: each pod needs a folder of its own", results)
	}
	if args[0] != "eval" || !strings.HasPrefix(args[1], "/opt/deskpilot/suites/") {
		t.Errorf("args %q: want eval and a suite the image ships", args)
	} else if _, err := eval.Load(filepath.Join("../../eval/suites", strings.TrimPrefix(args[1], "/opt/deskpilot/suites/"))); err != nil {
		t.Errorf("the job's suite: %v", err)
	}
	checkResultsVolume(t, pod, c, results, pvc.Name)
	checkResources(t, c, resource.MustParse("1"), resource.MustParse("2Gi"))
	checkEnv(t, c, cm)
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.FSGroup == nil {
		t.Errorf("pod securityContext %+v: run as non-root with an fsGroup for the volume", sc)
	}
	checkBoxable(t, pod, c)
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("pvc access modes %v: pods on several nodes write to it", pvc.Spec.AccessModes)
	}
}

// checkBoxable: the pod may make the tasks' bubblewrap boxes. bwrap unshares a
// user namespace (refused by the runtimes' default seccomp and AppArmor
// profiles) and mounts a /proc of its own, which the kernel allows only when
// the container's /proc is not masked: procMount Unmasked, which Kubernetes
// accepts only in a pod of its own user namespace (hostUsers false). Without
// them every task fails with "box: bwrap did not start".
func checkBoxable(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if pod.HostUsers == nil || *pod.HostUsers {
		t.Error("hostUsers must be false: procMount Unmasked needs the pod's own user namespace")
	}
	sc := c.SecurityContext
	if sc == nil {
		t.Fatal("the eval container has no securityContext")
	}
	if sc.ProcMount == nil || *sc.ProcMount != corev1.UnmaskedProcMount {
		t.Errorf("procMount %v, want Unmasked: bwrap mounts a /proc of the box", sc.ProcMount)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeUnconfined {
		t.Errorf("seccompProfile %+v, want Unconfined: the default profile refuses unshare(CLONE_NEWUSER)", sc.SeccompProfile)
	}
	if sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeUnconfined {
		t.Errorf("appArmorProfile %+v, want Unconfined", sc.AppArmorProfile)
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Error("the eval container must not be privileged: the box needs no more than the above")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation must be false")
	}
}

// checkResultsVolume: the results folder is on a mounted volume backed by the PVC.
func checkResultsVolume(t *testing.T, pod corev1.PodSpec, c corev1.Container, dir, claim string) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if !strings.HasPrefix(dir, strings.TrimSuffix(m.MountPath, "/")+"/") {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				return
			}
		}
		t.Errorf("mount %s is not the PVC %s", m.Name, claim)
		return
	}
	t.Errorf("results folder %s is on no mounted volume", dir)
}

// checkResources: requests and limits set, requests at least min and within limits.
func checkResources(t *testing.T, c corev1.Container, minCPU, minMem resource.Quantity) {
	t.Helper()
	r := c.Resources
	cpu, mem, memLimit := r.Requests[corev1.ResourceCPU], r.Requests[corev1.ResourceMemory], r.Limits[corev1.ResourceMemory]
	if cpu.Cmp(minCPU) < 0 || mem.Cmp(minMem) < 0 {
		t.Errorf("requests cpu %s memory %s, want at least %s and %s", cpu.String(), mem.String(), minCPU.String(), minMem.String())
	}
	if memLimit.IsZero() || memLimit.Cmp(mem) < 0 {
		t.Errorf("memory limit %s below the request %s", memLimit.String(), mem.String())
	}
	if cpuLimit, ok := r.Limits[corev1.ResourceCPU]; ok && cpuLimit.Cmp(cpu) < 0 {
		t.Errorf("cpu limit %s below the request %s", cpuLimit.String(), cpu.String())
	}
}

// checkEnv: the model comes from the ConfigMap, the key from a Secret, and no
// credential is written in the manifest.
func checkEnv(t *testing.T, c corev1.Container, cm corev1.ConfigMap) {
	t.Helper()
	secret := regexp.MustCompile(`(?i)(^|_)(KEY|TOKEN|SECRET|PASSWORD)(_|$)`)
	keyFromSecret := false
	for _, e := range c.Env {
		if secret.MatchString(e.Name) {
			if e.Value != "" {
				t.Errorf("env %s holds a literal value", e.Name)
			}
			keyFromSecret = keyFromSecret || (e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil)
		}
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
			ref := e.ValueFrom.ConfigMapKeyRef
			if _, ok := cm.Data[ref.Key]; ref.Name != cm.Name || !ok {
				t.Errorf("env %s reads %s/%s, which config.yaml does not define", e.Name, ref.Name, ref.Key)
			}
		}
	}
	if !keyFromSecret {
		t.Error("no API key from a Secret")
	}
}

func TestMergeJob(t *testing.T) {
	var job, merge batchv1.Job
	decode(t, "job.yaml", &job)
	decode(t, "merge-job.yaml", &merge)
	c := merge.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0].Image != job.Spec.Template.Spec.Containers[0].Image {
		t.Fatalf("merge job containers %+v: want one, with the eval image", c)
	}
	cmd := strings.Join(append(slices.Clone(c[0].Command), c[0].Args...), " ")
	if !strings.Contains(cmd, "deskpilot eval merge") || !strings.Contains(cmd, "/results/shard-*") {
		t.Errorf("merge command %q", cmd)
	}
	checkResources(t, c[0], resource.MustParse("100m"), resource.MustParse("128Mi"))
}

// TestDockerfile: the image is Debian 12 with the Makefile's packages, the
// binary and the suites the jobs name.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	for _, want := range []string{"FROM debian:12 AS runtime", "COPY Makefile", "make build", "make -s print-runtime-pkgs", "dpkg-shlibdeps",
		"COPY --from=build /src/bin/deskpilot /usr/local/bin/deskpilot", "COPY eval/suites /opt/deskpilot/suites", "USER 10001"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// The runtime stage installs no compiler, no -dev package and no make.
	runtime := df[strings.Index(df, "FROM debian:12"):]
	for _, bad := range []string{"make deps", "make -C", " make ", "gcc", "-dev ", "golang"} {
		if strings.Contains(runtime, bad) {
			t.Errorf("the runtime stage has %q:\n%s", bad, runtime)
		}
	}
}
