package deploy

import (
	"bufio"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

const (
	k8sDir         = "k8s"
	secretTemplate = "secret.template.yaml"
	kustomization  = "kustomization.yaml"
	readmeFile     = "../README.md"
	modulePrefix   = "github.com/mithub/mithub/"
)

// k8sServices are the services deployed on Kubernetes, with where their
// health routes are registered and the variable holding their listen
// address.
var k8sServices = map[string]struct {
	addrVar string
	// routes is the source file registering the probe routes and the
	// format of one registration ("%s" is the path).
	routesFile, routeFormat string
}{
	"agent-api":       {"MITHUB_HTTP_ADDR", "../services/agent-api/internal/httpapi/server.go", `app.Get("%s"`},
	"realtime-worker": {"MITHUB_WORKER_HTTP_ADDR", "../pkg/health/health.go", `"GET %s"`},
	"pr-worker":       {"MITHUB_WORKER_HTTP_ADDR", "../pkg/health/health.go", `"GET %s"`},
}

// secretVars must come from the Secret, never from a literal or a ConfigMap.
var secretVars = []string{
	"MITHUB_DATABASE_URL", "MITHUB_REDIS_URL", "MITHUB_API_KEY", "MITHUB_LLM_API_KEY",
	"MITHUB_EMBED_API_KEY", "MITHUB_LIVEKIT_API_KEY", "MITHUB_LIVEKIT_API_SECRET",
}

// knownKinds maps each kind the manifests may use to its apiVersion.
var knownKinds = map[string]string{
	"Namespace":               "v1",
	"ConfigMap":               "v1",
	"Secret":                  "v1",
	"Service":                 "v1",
	"Deployment":              "apps/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2",
	"PodDisruptionBudget":     "policy/v1",
	"Kustomization":           "kustomize.config.k8s.io/v1beta1",
}

type objectMeta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
}

// object is one YAML document of a manifest file.
type object struct {
	file       string
	node       *yaml.Node
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
}

func (o object) String() string { return o.file + ": " + o.Kind + "/" + o.Metadata.Name }

type selector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type secretKeyRef struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional bool   `yaml:"optional"`
}

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		SecretKeyRef    *secretKeyRef `yaml:"secretKeyRef"`
		ConfigMapKeyRef *struct {
			Name string `yaml:"name"`
			Key  string `yaml:"key"`
		} `yaml:"configMapKeyRef"`
	} `yaml:"valueFrom"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

type container struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	EnvFrom []struct {
		ConfigMapRef *struct {
			Name string `yaml:"name"`
		} `yaml:"configMapRef"`
		SecretRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Env            []envVar `yaml:"env"`
	StartupProbe   *probe   `yaml:"startupProbe"`
	LivenessProbe  *probe   `yaml:"livenessProbe"`
	ReadinessProbe *probe   `yaml:"readinessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext *struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

type deployment struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Replicas int      `yaml:"replicas"`
		Selector selector `yaml:"selector"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				AutomountServiceAccountToken  *bool `yaml:"automountServiceAccountToken"`
				TerminationGracePeriodSeconds int   `yaml:"terminationGracePeriodSeconds"`
				SecurityContext               struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
					RunAsUser    int   `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Containers []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type servicePort struct {
	Name       string `yaml:"name"`
	Port       int    `yaml:"port"`
	TargetPort any    `yaml:"targetPort"`
}

type k8sService struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []servicePort     `yaml:"ports"`
	} `yaml:"spec"`
}

type hpa struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		ScaleTargetRef struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Name       string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
	} `yaml:"spec"`
}

type pdb struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		MinAvailable int      `yaml:"minAvailable"`
		Selector     selector `yaml:"selector"`
	} `yaml:"spec"`
}

type configMap struct {
	Metadata objectMeta        `yaml:"metadata"`
	Data     map[string]string `yaml:"data"`
}

type secret struct {
	Metadata   objectMeta        `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
}

type kustomize struct {
	Namespace string   `yaml:"namespace"`
	Resources []string `yaml:"resources"`
	Images    []struct {
		Name   string `yaml:"name"`
		NewTag string `yaml:"newTag"`
	} `yaml:"images"`
}

// manifests holds every document under deploy/k8s, by kind.
type manifests struct {
	all         []object
	deployments map[string]deployment
	services    map[string]k8sService
	hpas        []hpa
	pdbs        []pdb
	configMaps  map[string]configMap
	secrets     map[string]secret
	kustomize   kustomize
}

func decodeAs[T any](t *testing.T, o object) T {
	t.Helper()
	var v T
	if err := o.node.Decode(&v); err != nil {
		t.Fatalf("%s: %v", o, err)
	}
	return v
}

func loadManifests(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", k8sDir, err)
	}
	m := &manifests{deployments: map[string]deployment{}, services: map[string]k8sService{},
		configMaps: map[string]configMap{}, secrets: map[string]secret{}}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for {
			var n yaml.Node
			if err := dec.Decode(&n); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			o := object{file: filepath.Base(file), node: &n}
			if err := n.Decode(&o); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			m.add(t, o)
		}
		f.Close()
	}
	return m
}

func (m *manifests) add(t *testing.T, o object) {
	t.Helper()
	m.all = append(m.all, o)
	switch o.Kind {
	case "Deployment":
		m.deployments[o.Metadata.Name] = decodeAs[deployment](t, o)
	case "Service":
		m.services[o.Metadata.Name] = decodeAs[k8sService](t, o)
	case "HorizontalPodAutoscaler":
		m.hpas = append(m.hpas, decodeAs[hpa](t, o))
	case "PodDisruptionBudget":
		m.pdbs = append(m.pdbs, decodeAs[pdb](t, o))
	case "ConfigMap":
		m.configMaps[o.Metadata.Name] = decodeAs[configMap](t, o)
	case "Secret":
		m.secrets[o.Metadata.Name] = decodeAs[secret](t, o)
	case "Kustomization":
		m.kustomize = decodeAs[kustomize](t, o)
	}
}

// matches reports whether every label of sel is in labels.
func matches(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// deploymentsSelected returns the Deployments whose pods sel selects.
func (m *manifests) deploymentsSelected(sel map[string]string) []string {
	var out []string
	for name, d := range m.deployments {
		if matches(sel, d.Spec.Template.Metadata.Labels) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestK8sKindsAndAPIVersions(t *testing.T) {
	m := loadManifests(t)
	for _, o := range m.all {
		want, ok := knownKinds[o.Kind]
		switch {
		case !ok:
			t.Errorf("%s: unknown kind %q", o, o.Kind)
		case o.APIVersion != want:
			t.Errorf("%s: apiVersion %q, want %q", o, o.APIVersion, want)
		case o.Kind != "Kustomization" && o.Metadata.Name == "":
			t.Errorf("%s: no metadata.name", o)
		case o.Kind != "Kustomization" && o.Metadata.Labels["app.kubernetes.io/part-of"] != "mithub":
			t.Errorf("%s: no app.kubernetes.io/part-of: mithub label", o)
		case o.Metadata.Namespace != "" && o.Metadata.Namespace != m.kustomize.Namespace:
			t.Errorf("%s: namespace %q, the kustomization's is %q", o, o.Metadata.Namespace, m.kustomize.Namespace)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k8sServices)) {
		if _, ok := m.deployments[name]; !ok {
			t.Errorf("no Deployment %s", name)
		}
	}
}

func TestK8sKustomization(t *testing.T) {
	m := loadManifests(t)
	files, _ := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	var want []string
	for _, f := range files {
		if b := filepath.Base(f); b != kustomization && b != secretTemplate {
			want = append(want, b)
		}
	}
	got := slices.Sorted(slices.Values(m.kustomize.Resources))
	if !slices.Equal(got, want) {
		t.Errorf("kustomization resources %q, want every manifest but the secret template: %q", got, want)
	}
	var ns []string
	for _, o := range m.all {
		if o.Kind == "Namespace" {
			ns = append(ns, o.Metadata.Name)
		}
	}
	if len(ns) != 1 || ns[0] != m.kustomize.Namespace {
		t.Errorf("namespaces %q, kustomization namespace %q", ns, m.kustomize.Namespace)
	}
	var images, used []string
	for _, img := range m.kustomize.Images {
		images = append(images, img.Name)
	}
	for _, d := range m.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			repo, _, _ := strings.Cut(c.Image, ":")
			used = append(used, repo)
		}
	}
	slices.Sort(images)
	slices.Sort(used)
	if !slices.Equal(images, used) {
		t.Errorf("kustomization images %q, the Deployments use %q", images, used)
	}
}

func TestK8sSelectorsMatch(t *testing.T) {
	m := loadManifests(t)
	for name, d := range m.deployments {
		if !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels) {
			t.Errorf("Deployment %s: selector %v does not select its pods %v", name, d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels)
		}
		if got := m.deploymentsSelected(d.Spec.Selector.MatchLabels); len(got) != 1 {
			t.Errorf("Deployment %s: its selector selects the pods of %q", name, got)
		}
	}
	for name, s := range m.services {
		got := m.deploymentsSelected(s.Spec.Selector)
		if len(got) != 1 {
			t.Errorf("Service %s: selector %v selects Deployments %q, want one", name, s.Spec.Selector, got)
			continue
		}
		for _, p := range s.Spec.Ports {
			if !slices.ContainsFunc(m.deployments[got[0]].Spec.Template.Spec.Containers,
				func(c container) bool { _, ok := containerPort(c, p.TargetPort); return ok }) {
				t.Errorf("Service %s: targetPort %v is not a port of %s", name, p.TargetPort, got[0])
			}
		}
	}
	for _, h := range m.hpas {
		ref := h.Spec.ScaleTargetRef
		d, ok := m.deployments[ref.Name]
		switch {
		case !ok || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1":
			t.Errorf("HPA %s: scale target %+v is not a Deployment here", h.Metadata.Name, ref)
		case h.Spec.MinReplicas < 1 || h.Spec.MinReplicas > h.Spec.MaxReplicas:
			t.Errorf("HPA %s: replicas %d..%d", h.Metadata.Name, h.Spec.MinReplicas, h.Spec.MaxReplicas)
		case d.Spec.Replicas < h.Spec.MinReplicas:
			t.Errorf("HPA %s: Deployment starts with %d replicas, below the HPA's minimum %d", h.Metadata.Name, d.Spec.Replicas, h.Spec.MinReplicas)
		}
	}
	for _, p := range m.pdbs {
		got := m.deploymentsSelected(p.Spec.Selector.MatchLabels)
		if len(got) != 1 {
			t.Errorf("PDB %s: selects Deployments %q, want one", p.Metadata.Name, got)
			continue
		}
		if d := m.deployments[got[0]]; p.Spec.MinAvailable >= d.Spec.Replicas {
			t.Errorf("PDB %s: minAvailable %d leaves no room to evict any of %d replicas", p.Metadata.Name, p.Spec.MinAvailable, d.Spec.Replicas)
		}
	}
}

// containerPort resolves a port given by name or number to its number.
func containerPort(c container, port any) (int, bool) {
	for _, p := range c.Ports {
		switch v := port.(type) {
		case string:
			if p.Name == v {
				return p.ContainerPort, true
			}
		case int:
			if p.ContainerPort == v {
				return v, true
			}
		}
	}
	return 0, false
}

// containerEnv is the environment a container gets: name → where from
// ("configmap", "secret" or "literal").
func (m *manifests) containerEnv(t *testing.T, c container) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			cm, ok := m.configMaps[ef.ConfigMapRef.Name]
			if !ok {
				t.Errorf("%s: envFrom ConfigMap %q is not in the manifests", c.Name, ef.ConfigMapRef.Name)
			}
			for k := range cm.Data {
				env[k] = "configmap"
			}
		case ef.SecretRef != nil:
			t.Errorf("%s: envFrom a whole Secret; take each key with secretKeyRef", c.Name)
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = "secret"
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
			env[e.Name] = "configmap"
		default:
			env[e.Name] = "literal"
		}
	}
	return env
}

func TestK8sEnvIsReadByTheService(t *testing.T) {
	m := loadManifests(t)
	readme := readmeServices(t)
	for name := range k8sServices {
		d, ok := m.deployments[name]
		if !ok {
			t.Errorf("no Deployment %s", name)
			continue
		}
		read := configVars(t, name)
		for _, c := range d.Spec.Template.Spec.Containers {
			for v := range m.containerEnv(t, c) {
				if !read[v] {
					t.Errorf("%s: %s is not read by services/%s/internal/config or the pkg packages it uses", name, v, name)
				}
				if svcs, ok := readme[v]; !ok {
					t.Errorf("%s: %s is not in README's configuration table", name, v)
				} else if !strings.HasPrefix(svcs, "all") && !strings.Contains(svcs, name) {
					t.Errorf("%s: README's configuration table lists %s for %q, not for %s", name, v, svcs, name)
				}
			}
		}
	}
}

func TestK8sSecretsComeFromTheSecret(t *testing.T) {
	m := loadManifests(t)
	tmpl := m.secrets["mithub-secrets"]
	if tmpl.Metadata.Name == "" {
		t.Fatalf("%s does not define Secret mithub-secrets", secretTemplate)
	}
	if len(tmpl.Data) > 0 {
		t.Errorf("%s: use stringData placeholders, not data", secretTemplate)
	}
	for k, v := range tmpl.StringData {
		if v != "CHANGE-ME" {
			t.Errorf("%s: %s = %q; the template holds placeholders only", secretTemplate, k, v)
		}
	}
	for name, cm := range m.configMaps {
		for k := range cm.Data {
			if slices.Contains(secretVars, k) {
				t.Errorf("ConfigMap %s holds the secret %s", name, k)
			}
		}
	}
	for name, d := range m.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				isSecret := slices.Contains(secretVars, e.Name)
				var ref *secretKeyRef
				if e.ValueFrom != nil {
					ref = e.ValueFrom.SecretKeyRef
				}
				switch {
				case isSecret && ref == nil:
					t.Errorf("%s: %s is not taken from a Secret", name, e.Name)
				case ref == nil:
				case ref.Name != tmpl.Metadata.Name:
					t.Errorf("%s: %s comes from Secret %q, not %q", name, e.Name, ref.Name, tmpl.Metadata.Name)
				case !hasKey(tmpl.StringData, ref.Key):
					t.Errorf("%s: %s takes key %q, which %s does not have", name, e.Name, ref.Key, secretTemplate)
				}
			}
		}
	}
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func TestK8sProbesHitRealRoutes(t *testing.T) {
	m := loadManifests(t)
	for name, svc := range k8sServices {
		d, ok := m.deployments[name]
		if !ok || len(d.Spec.Template.Spec.Containers) == 0 {
			t.Errorf("no Deployment %s with a container", name)
			continue
		}
		c := d.Spec.Template.Spec.Containers[0]
		env := map[string]string{}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef != nil {
				maps.Copy(env, m.configMaps[ef.ConfigMapRef.Name].Data)
			}
		}
		_, portStr, err := net.SplitHostPort(env[svc.addrVar])
		listen, _ := strconv.Atoi(portStr)
		if err != nil || listen == 0 {
			t.Errorf("%s: %s=%q is not host:port", name, svc.addrVar, env[svc.addrVar])
		}
		src, err := os.ReadFile(svc.routesFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			kind  string
			probe *probe
			want  string
		}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}, {"startup", c.StartupProbe, ""}} {
			if p.probe == nil {
				if p.want != "" {
					t.Errorf("%s: no %s probe", name, p.kind)
				}
				continue
			}
			if p.probe.HTTPGet == nil {
				t.Errorf("%s: %s probe is not an HTTP GET", name, p.kind)
				continue
			}
			path := p.probe.HTTPGet.Path
			if p.want != "" && path != p.want {
				t.Errorf("%s: %s probe on %s, want %s", name, p.kind, path, p.want)
			}
			if !strings.Contains(string(src), strings.Replace(svc.routeFormat, "%s", path, 1)) {
				t.Errorf("%s: %s probe path %s is not a route registered in %s", name, p.kind, path, svc.routesFile)
			}
			if port, ok := containerPort(c, p.probe.HTTPGet.Port); !ok {
				t.Errorf("%s: %s probe port %v is not a container port", name, p.kind, p.probe.HTTPGet.Port)
			} else if port != listen {
				t.Errorf("%s: %s probe port %v is %d, the service listens on %d", name, p.kind, p.probe.HTTPGet.Port, port, listen)
			}
		}
	}
}

func TestK8sImagesMatchDockerfiles(t *testing.T) {
	m := loadManifests(t)
	for name := range k8sServices {
		d, ok := m.deployments[name]
		if !ok {
			t.Errorf("no Deployment %s", name)
			continue
		}
		pod := d.Spec.Template.Spec
		if len(pod.Containers) != 1 {
			t.Errorf("%s: %d containers, want 1", name, len(pod.Containers))
			continue
		}
		c := pod.Containers[0]
		df := dockerfileRuntime(t, "Dockerfile."+name)
		repo, tag, _ := strings.Cut(c.Image, ":")
		if repo != "mithub/"+name || tag == "" {
			t.Errorf("%s: image %q, want mithub/%s:TAG (built from Dockerfile.%s)", name, c.Image, name, name)
		}
		if pod.SecurityContext.RunAsUser != df.uid {
			t.Errorf("%s: runAsUser %d, Dockerfile.%s runs as uid %d", name, pod.SecurityContext.RunAsUser, name, df.uid)
		}
		if df.expose != 0 {
			if _, ok := containerPort(c, df.expose); !ok {
				t.Errorf("%s: Dockerfile.%s exposes %d, not a container port", name, name, df.expose)
			}
		}
		sc := c.SecurityContext
		switch {
		case pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot:
			t.Errorf("%s: pod does not require runAsNonRoot", name)
		case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("%s: root filesystem is writable", name)
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("%s: privilege escalation allowed", name)
		case !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}):
			t.Errorf("%s: capabilities drop %q, want ALL", name, sc.Capabilities.Drop)
		case pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken:
			t.Errorf("%s: mounts a service account token it never uses", name)
		}
		for _, res := range []string{"cpu", "memory"} {
			if c.Resources.Requests[res] == "" || c.Resources.Limits[res] == "" {
				t.Errorf("%s: %s request or limit missing", name, res)
			}
		}
	}
}

func TestK8sAPIURLIsTheAgentAPIService(t *testing.T) {
	m := loadManifests(t)
	raw := m.configMaps["realtime-worker"].Data["MITHUB_API_URL"]
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("MITHUB_API_URL %q: %v", raw, err)
	}
	s, ok := m.services[u.Hostname()]
	if !ok || !slices.Equal(m.deploymentsSelected(s.Spec.Selector), []string{"agent-api"}) {
		t.Fatalf("MITHUB_API_URL host %q is not the agent-api Service", u.Hostname())
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if !slices.ContainsFunc(s.Spec.Ports, func(p servicePort) bool { return strconv.Itoa(p.Port) == port }) {
		t.Errorf("MITHUB_API_URL port %s is not a port of Service %s", port, s.Metadata.Name)
	}
}

// dockerRuntime is what the final stage of a Dockerfile says about the container.
type dockerRuntime struct {
	uid    int
	expose int
}

// distrolessNonroot is the uid of user "nonroot" in the distroless images.
const distrolessNonroot = 65532

func dockerfileRuntime(t *testing.T, path string) dockerRuntime {
	t.Helper()
	var (
		r     dockerRuntime
		from  string
		user  string
		final []instruction
	)
	for _, in := range parseDockerfile(t, path) {
		if in.cmd == "FROM" {
			from, user, final = in.args, "", nil
		}
		final = append(final, in)
	}
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user, _, _ = strings.Cut(in.args, ":")
		case "EXPOSE":
			r.expose, _ = strconv.Atoi(strings.TrimSuffix(strings.Fields(in.args)[0], "/tcp"))
		}
	}
	switch n, err := strconv.Atoi(user); {
	case err == nil:
		r.uid = n
	case user == "nonroot" && strings.Contains(from, "distroless"):
		r.uid = distrolessNonroot
	default:
		t.Fatalf("%s: final stage %q runs as %q, not a known non-root uid", path, from, user)
	}
	return r
}

// readmeServices maps each variable of README's configuration table to
// the services column of its row.
func readmeServices(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	varRE := regexp.MustCompile("`(MITHUB_[A-Z0-9_]+)`")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`MITHUB_") {
			continue
		}
		for _, v := range varRE.FindAllStringSubmatch(cells[1], -1) {
			out[v[1]] = strings.TrimSpace(cells[2])
		}
	}
	if len(out) == 0 {
		t.Fatal("README has no configuration table")
	}
	return out
}

// configVars returns the MITHUB_* string literals of a service's config
// package and of the pkg packages it imports.
func configVars(t *testing.T, svc string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	dirs := []string{filepath.Join("..", "services", svc, "internal", "config")}
	for i := 0; i < len(dirs); i++ {
		files, _ := filepath.Glob(filepath.Join(dirs[i], "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				for _, imp := range f.Imports {
					p, _ := strconv.Unquote(imp.Path.Value)
					if rest, ok := strings.CutPrefix(p, modulePrefix+"pkg/"); ok {
						dirs = append(dirs, filepath.Join("..", "pkg", rest))
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "MITHUB_") {
						out[s] = true
					}
				}
				return true
			})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no MITHUB_ variables found for %s", svc)
	}
	return out
}
