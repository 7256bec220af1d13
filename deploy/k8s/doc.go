// Package k8s holds deskpilot eval's container build (Dockerfile) and Kubernetes
// manifests (job.yaml: an Indexed Job running one shard of a suite per pod;
// merge-job.yaml, pvc.yaml, config.yaml). It has no code: its test decodes every
// manifest strictly into the Kubernetes API types and checks the fields the
// evaluation depends on. docs/eval.md explains how to use them.
package k8s
