package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v4"
)

const (
	repoRoot    = ".."
	composeFile = "../docker-compose.yml"
)

// goServices are the services built from this repository.
var goServices = []string{"agent-api", "realtime-worker", "pr-worker", "mithubctl"}

// loadProject loads docker-compose.yml as `docker compose --profile '*'`
// would, with an empty environment so that every ${VAR:-default} takes its
// default.
func loadProject(t *testing.T) *types.Project {
	t.Helper()
	return load(t, types.Mapping{}, "*")
}

// load loads docker-compose.yml with the given environment and profiles.
func load(t *testing.T, environment types.Mapping, profiles ...string) *types.Project {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	file, err := filepath.Abs(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	details := types.ConfigDetails{
		WorkingDir:  root,
		ConfigFiles: []types.ConfigFile{{Filename: file}},
		Environment: environment,
	}
	project, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("mithub", true)
		o.Profiles = profiles
		o.ResolvePaths = true
	})
	if err != nil {
		t.Fatalf("load %s: %v", composeFile, err)
	}
	return project
}

func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, err := p.GetService(name)
	if err != nil {
		t.Fatalf("service %q: %v", name, err)
	}
	return s
}

func env(t *testing.T, s types.ServiceConfig, name string) string {
	t.Helper()
	v, ok := s.Environment[name]
	if !ok || v == nil || *v == "" {
		t.Fatalf("service %s: %s is not set", s.Name, name)
	}
	return *v
}

func parseURL(t *testing.T, s types.ServiceConfig, name string) *url.URL {
	t.Helper()
	raw := env(t, s, name)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("service %s: %s=%q: %v", s.Name, name, raw, err)
	}
	return u
}

// httpPort is the port of agent-api's MITHUB_HTTP_ADDR.
func httpPort(t *testing.T, p *types.Project) string {
	t.Helper()
	addr := env(t, service(t, p, "agent-api"), "MITHUB_HTTP_ADDR")
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("agent-api MITHUB_HTTP_ADDR=%q: %v", addr, err)
	}
	return port
}

func TestComposeServices(t *testing.T) {
	p := loadProject(t)
	tests := []struct {
		give      string
		wantImage string
	}{
		{give: "postgres", wantImage: "pgvector/pgvector:pg16"},
		{give: "redis", wantImage: "redis:7"},
		{give: "livekit", wantImage: "livekit/livekit-server:v1.13.5"},
		{give: "agent-api", wantImage: "mithub/agent-api:dev"},
		{give: "realtime-worker", wantImage: "mithub/realtime-worker:dev"},
		{give: "pr-worker", wantImage: "mithub/pr-worker:dev"},
		{give: "mithubctl", wantImage: "mithub/mithubctl:dev"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			if got := service(t, p, tt.give).Image; got != tt.wantImage {
				t.Errorf("image = %q, want %q", got, tt.wantImage)
			}
		})
	}
	if got, want := len(p.Services), len(tests); got != want {
		t.Errorf("project has %d services %v, want %d", got, p.ServiceNames(), want)
	}
}

func TestComposeOnDemandServicesNeedProfile(t *testing.T) {
	p := load(t, types.Mapping{})
	want := []string{"agent-api", "livekit", "postgres", "pr-worker", "realtime-worker", "redis"}
	if got := p.ServiceNames(); !slices.Equal(got, want) {
		t.Errorf("services started by `docker compose up` = %v, want %v", got, want)
	}
}

func TestComposePublishedPorts(t *testing.T) {
	p := loadProject(t)
	tests := []struct {
		service   string
		give      uint32 // container port
		protocol  string
		wantHost  string
		wantCount int // number of ports published by the service
	}{
		{service: "agent-api", give: 8080, protocol: "tcp", wantHost: "8080", wantCount: 1},
		{service: "realtime-worker", give: 8090, protocol: "tcp", wantHost: "8090", wantCount: 1},
		{service: "livekit", give: 7880, protocol: "tcp", wantHost: "7880", wantCount: 103},
		{service: "livekit", give: 7881, protocol: "tcp", wantHost: "7881", wantCount: 103},
		{service: "livekit", give: 50000, protocol: "udp", wantHost: "50000", wantCount: 103},
		{service: "livekit", give: 50100, protocol: "udp", wantHost: "50100", wantCount: 103},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+strconv.Itoa(int(tt.give))+"-"+tt.protocol, func(t *testing.T) {
			ports := service(t, p, tt.service).Ports
			i := slices.IndexFunc(ports, func(pc types.ServicePortConfig) bool {
				return pc.Target == tt.give && pc.Protocol == tt.protocol
			})
			if i < 0 {
				t.Fatalf("container port %d/%s is not published", tt.give, tt.protocol)
			}
			if got := ports[i].Published; got != tt.wantHost {
				t.Errorf("%d/%s published on %q, want %q", tt.give, tt.protocol, got, tt.wantHost)
			}
			if len(ports) != tt.wantCount {
				t.Errorf("%d ports published, want %d", len(ports), tt.wantCount)
			}
		})
	}
}

func TestComposeBuildsFromRepoRoot(t *testing.T) {
	p := loadProject(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range goServices {
		t.Run(name, func(t *testing.T) {
			b := service(t, p, name).Build
			if b == nil {
				t.Fatal("no build section")
			}
			if got := filepath.Clean(b.Context); got != root {
				t.Errorf("build context = %q, want the repository root %q", got, root)
			}
			want := "deploy/Dockerfile." + name
			if got := filepath.ToSlash(b.Dockerfile); got != want {
				t.Errorf("dockerfile = %q, want %q", got, want)
			}
			if _, err := os.Stat(filepath.Join(b.Context, b.Dockerfile)); err != nil {
				t.Errorf("dockerfile: %v", err)
			}
		})
	}
}

func TestComposeDependsOn(t *testing.T) {
	p := loadProject(t)
	tests := []struct {
		service string
		give    string // dependency
		want    string // condition
	}{
		{service: "agent-api", give: "postgres", want: types.ServiceConditionHealthy},
		{service: "agent-api", give: "redis", want: types.ServiceConditionHealthy},
		{service: "realtime-worker", give: "postgres", want: types.ServiceConditionHealthy},
		{service: "realtime-worker", give: "redis", want: types.ServiceConditionHealthy},
		{service: "realtime-worker", give: "agent-api", want: types.ServiceConditionHealthy},
		{service: "realtime-worker", give: "livekit", want: types.ServiceConditionStarted},
		{service: "pr-worker", give: "postgres", want: types.ServiceConditionHealthy},
		{service: "pr-worker", give: "redis", want: types.ServiceConditionHealthy},
		{service: "pr-worker", give: "agent-api", want: types.ServiceConditionHealthy},
		{service: "mithubctl", give: "agent-api", want: types.ServiceConditionHealthy},
	}
	for _, tt := range tests {
		t.Run(tt.service+"->"+tt.give, func(t *testing.T) {
			dep, ok := service(t, p, tt.service).DependsOn[tt.give]
			if !ok {
				t.Fatalf("%s does not depend on %s", tt.service, tt.give)
			}
			if dep.Condition != tt.want {
				t.Errorf("condition = %q, want %q", dep.Condition, tt.want)
			}
		})
	}
}

func TestComposeEnvHosts(t *testing.T) {
	p := loadProject(t)
	apiPort := httpPort(t, p)
	tests := []struct {
		service  string
		give     string // variable holding a URL
		wantHost string // a compose service
		wantPort string
	}{
		{service: "agent-api", give: "MITHUB_DATABASE_URL", wantHost: "postgres", wantPort: "5432"},
		{service: "realtime-worker", give: "MITHUB_DATABASE_URL", wantHost: "postgres", wantPort: "5432"},
		{service: "pr-worker", give: "MITHUB_DATABASE_URL", wantHost: "postgres", wantPort: "5432"},
		{service: "agent-api", give: "MITHUB_REDIS_URL", wantHost: "redis", wantPort: "6379"},
		{service: "realtime-worker", give: "MITHUB_REDIS_URL", wantHost: "redis", wantPort: "6379"},
		{service: "pr-worker", give: "MITHUB_REDIS_URL", wantHost: "redis", wantPort: "6379"},
		{service: "realtime-worker", give: "MITHUB_API_URL", wantHost: "agent-api", wantPort: apiPort},
		{service: "pr-worker", give: "MITHUB_API_URL", wantHost: "agent-api", wantPort: apiPort},
		{service: "mithubctl", give: "MITHUB_API_URL", wantHost: "agent-api", wantPort: apiPort},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_URL", wantHost: "livekit", wantPort: "7880"},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+tt.give, func(t *testing.T) {
			u := parseURL(t, service(t, p, tt.service), tt.give)
			if u.Hostname() != tt.wantHost || u.Port() != tt.wantPort {
				t.Errorf("%s points at %s, want %s:%s", tt.give, u.Host, tt.wantHost, tt.wantPort)
			}
			_ = service(t, p, u.Hostname()) // the host must be a service of this project
		})
	}
}

func TestComposeEnvValues(t *testing.T) {
	p := loadProject(t)
	tests := []struct {
		service string
		give    string
		want    string
	}{
		{service: "agent-api", give: "MITHUB_ENV", want: "dev"},
		{service: "agent-api", give: "MITHUB_HTTP_ADDR", want: ":8080"},
		{service: "agent-api", give: "MITHUB_LLM_PROVIDER", want: "local"},
		{service: "agent-api", give: "MITHUB_DATABASE_URL", want: "postgres://postgres:postgres@postgres:5432/mithub?sslmode=disable"},
		{service: "agent-api", give: "MITHUB_REDIS_URL", want: "redis://redis:6379/0"},
		{service: "realtime-worker", give: "MITHUB_API_URL", want: "http://agent-api:8080"},
		{service: "realtime-worker", give: "MITHUB_API_KEY", want: "dev-key"},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_URL", want: "ws://livekit:7880"},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_API_KEY", want: "devkey"},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_API_SECRET", want: "secret"},
		{service: "realtime-worker", give: "MITHUB_ENV", want: "dev"},
		{service: "pr-worker", give: "MITHUB_API_URL", want: "http://agent-api:8080"},
		{service: "pr-worker", give: "MITHUB_API_KEY", want: "dev-key"},
		{service: "pr-worker", give: "MITHUB_LLM_PROVIDER", want: "local"},
		{service: "pr-worker", give: "MITHUB_ENV", want: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+tt.give, func(t *testing.T) {
			if got := env(t, service(t, p, tt.service), tt.give); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestComposeDatabaseMatchesPostgres(t *testing.T) {
	p := loadProject(t)
	pg := service(t, p, "postgres")
	u := parseURL(t, service(t, p, "agent-api"), "MITHUB_DATABASE_URL")
	password, _ := u.User.Password()
	tests := []struct {
		name string
		give string // from MITHUB_DATABASE_URL
		want string // from the postgres container
	}{
		{name: "user", give: u.User.Username(), want: env(t, pg, "POSTGRES_USER")},
		{name: "password", give: password, want: env(t, pg, "POSTGRES_PASSWORD")},
		{name: "database", give: strings.TrimPrefix(u.Path, "/"), want: env(t, pg, "POSTGRES_DB")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.give != tt.want {
				t.Errorf("MITHUB_DATABASE_URL %s = %q, postgres has %q", tt.name, tt.give, tt.want)
			}
		})
	}
}

func TestComposeSecretsFollowEnvironment(t *testing.T) {
	p := load(t, types.Mapping{
		"MITHUB_POSTGRES_PASSWORD":  "pg-from-env",
		"MITHUB_API_KEY":            "key-from-env",
		"MITHUB_LIVEKIT_API_KEY":    "lk-key-from-env",
		"MITHUB_LIVEKIT_API_SECRET": "lk-secret-from-env",
	})
	tests := []struct {
		service string
		give    string
		want    string
	}{
		{service: "postgres", give: "POSTGRES_PASSWORD", want: "pg-from-env"},
		{service: "agent-api", give: "MITHUB_DATABASE_URL", want: "postgres://postgres:pg-from-env@postgres:5432/mithub?sslmode=disable"},
		{service: "pr-worker", give: "MITHUB_API_KEY", want: "key-from-env"},
		{service: "realtime-worker", give: "MITHUB_API_KEY", want: "key-from-env"},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_API_KEY", want: "lk-key-from-env"},
		{service: "realtime-worker", give: "MITHUB_LIVEKIT_API_SECRET", want: "lk-secret-from-env"},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+tt.give, func(t *testing.T) {
			if got := env(t, service(t, p, tt.service), tt.give); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestComposeHealthchecks(t *testing.T) {
	p := loadProject(t)
	tests := []struct {
		give string
		want string // must appear in the healthcheck command
	}{
		{give: "postgres", want: "pg_isready"},
		{give: "redis", want: "ping"},
		{give: "agent-api", want: "http://127.0.0.1:" + httpPort(t, p) + "/healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			hc := service(t, p, tt.give).HealthCheck
			if hc == nil || hc.Disable || len(hc.Test) < 2 {
				t.Fatalf("no healthcheck: %+v", hc)
			}
			if got := strings.Join(hc.Test[1:], " "); !strings.Contains(got, tt.want) {
				t.Errorf("healthcheck %q does not contain %q", got, tt.want)
			}
		})
	}
}

// livekitConfig is the part of deploy/livekit.yaml that the compose file
// depends on.
type livekitConfig struct {
	Port int `yaml:"port"`
	RTC  struct {
		TCPPort        int `yaml:"tcp_port"`
		PortRangeStart int `yaml:"port_range_start"`
		PortRangeEnd   int `yaml:"port_range_end"`
	} `yaml:"rtc"`
	Keys    map[string]string `yaml:"keys"`
	WebHook struct {
		APIKey string   `yaml:"api_key"`
		URLs   []string `yaml:"urls"`
	} `yaml:"webhook"`
}

func TestLiveKitConfigMatchesCompose(t *testing.T) {
	p := loadProject(t)
	lk := service(t, p, "livekit")
	if len(lk.Volumes) != 1 || lk.Volumes[0].Target != "/etc/livekit.yaml" {
		t.Fatalf("livekit volumes = %+v, want deploy/livekit.yaml at /etc/livekit.yaml", lk.Volumes)
	}
	if want := []string{"--config", "/etc/livekit.yaml"}; !slices.Equal(lk.Command, want) {
		t.Errorf("livekit command = %q, want %q", lk.Command, want)
	}
	raw, err := os.ReadFile(lk.Volumes[0].Source)
	if err != nil {
		t.Fatalf("livekit config: %v", err)
	}
	var conf livekitConfig
	if err := yaml.Unmarshal(raw, &conf); err != nil {
		t.Fatalf("parse %s: %v", lk.Volumes[0].Source, err)
	}
	if len(conf.WebHook.URLs) != 1 {
		t.Fatalf("webhook urls = %q, want one", conf.WebHook.URLs)
	}
	hook, err := url.Parse(conf.WebHook.URLs[0])
	if err != nil {
		t.Fatalf("webhook url: %v", err)
	}
	hookPort, _ := strconv.Atoi(hook.Port())

	rw := service(t, p, "realtime-worker")
	apiKey := env(t, rw, "MITHUB_LIVEKIT_API_KEY")
	tests := []struct {
		name string
		give string // from deploy/livekit.yaml
		want string // from docker-compose.yml
	}{
		{name: "signal port published", give: published(lk, conf.Port, "tcp"), want: strconv.Itoa(conf.Port)},
		{name: "signal port in MITHUB_LIVEKIT_URL", give: strconv.Itoa(conf.Port), want: parseURL(t, rw, "MITHUB_LIVEKIT_URL").Port()},
		{name: "rtc tcp port published", give: published(lk, conf.RTC.TCPPort, "tcp"), want: strconv.Itoa(conf.RTC.TCPPort)},
		{name: "udp range start published", give: published(lk, conf.RTC.PortRangeStart, "udp"), want: strconv.Itoa(conf.RTC.PortRangeStart)},
		{name: "udp range end published", give: published(lk, conf.RTC.PortRangeEnd, "udp"), want: strconv.Itoa(conf.RTC.PortRangeEnd)},
		{name: "secret of MITHUB_LIVEKIT_API_KEY", give: conf.Keys[apiKey], want: env(t, rw, "MITHUB_LIVEKIT_API_SECRET")},
		{name: "webhook api key", give: conf.WebHook.APIKey, want: apiKey},
		{name: "webhook host", give: hook.Hostname(), want: rw.Name},
		{name: "webhook port served by realtime-worker", give: published(rw, hookPort, "tcp"), want: hook.Port()},
		{name: "webhook path", give: hook.Path, want: "/livekit/webhook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.give != tt.want {
				t.Errorf("livekit.yaml gives %q, want %q", tt.give, tt.want)
			}
		})
	}
}

// published returns the host port that container port target/protocol of s
// is published on, or "" when it is not published.
func published(s types.ServiceConfig, target int, protocol string) string {
	for _, pc := range s.Ports {
		if int(pc.Target) == target && pc.Protocol == protocol {
			return pc.Published
		}
	}
	return ""
}

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case
	args string
}

func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var (
		out     []instruction
		pending strings.Builder
		start   int
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && pending.Len() == 0) {
			continue
		}
		if pending.Len() == 0 {
			start = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending.WriteString(cont + " ")
			continue
		}
		pending.WriteString(line)
		cmd, args, _ := strings.Cut(pending.String(), " ")
		out = append(out, instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		pending.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// copySources returns the sources of a COPY from the build context, or nil
// for COPY --from=<stage>.
func copySources(t *testing.T, in instruction) []string {
	t.Helper()
	var words []string
	for _, w := range strings.Fields(in.args) {
		if strings.HasPrefix(w, "--from=") {
			return nil
		}
		if !strings.HasPrefix(w, "--") || len(words) > 0 {
			words = append(words, w)
		}
	}
	rest := strings.Join(words, " ")
	if strings.HasPrefix(rest, "[") {
		words = nil
		if err := json.Unmarshal([]byte(rest), &words); err != nil {
			t.Fatalf("line %d: COPY %s: %v", in.line, in.args, err)
		}
	}
	if len(words) < 2 {
		t.Fatalf("line %d: COPY %s: want sources and a destination", in.line, in.args)
	}
	return words[:len(words)-1]
}

func dockerfiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("Dockerfile.*")
	if err != nil {
		t.Fatal(err)
	}
	want := len(goServices)
	if len(paths) != want {
		t.Fatalf("found %d Dockerfiles %v, want %d (one per Go service)", len(paths), paths, want)
	}
	return paths
}

func TestDockerfileCopySourcesExist(t *testing.T) {
	for _, path := range dockerfiles(t) {
		t.Run(path, func(t *testing.T) {
			copies := 0
			for _, in := range parseDockerfile(t, path) {
				if in.cmd != "COPY" && in.cmd != "ADD" {
					continue
				}
				srcs := copySources(t, in)
				if srcs == nil {
					continue
				}
				copies++
				matched := 0
				for _, src := range srcs {
					// Like Docker: a pattern may match nothing, a plain path must exist.
					m, err := filepath.Glob(filepath.Join(repoRoot, src))
					if err != nil {
						t.Errorf("line %d: bad pattern %q: %v", in.line, src, err)
					}
					if len(m) == 0 && !strings.ContainsAny(src, "*?[") {
						t.Errorf("line %d: %s copies %q, which is not in the repository", in.line, in.cmd, src)
					}
					matched += len(m)
				}
				if matched == 0 {
					t.Errorf("line %d: %s %s matches nothing in the repository", in.line, in.cmd, in.args)
				}
			}
			if copies == 0 {
				t.Error("copies nothing from the build context")
			}
		})
	}
}

// dockerfileFacts are what TestDockerfileBuildsItsService checks in a Dockerfile.
type dockerfileFacts struct {
	builder    string // first FROM, ARGs expanded
	cgo        string
	buildCmd   string // the `go build` RUN
	user       string // USER of the final stage
	entrypoint string
	copiesSelf bool // copies services/<svc>/
}

func readFacts(t *testing.T, path, svc string) dockerfileFacts {
	t.Helper()
	var (
		f    dockerfileFacts
		args []string
	)
	for _, in := range parseDockerfile(t, path) {
		switch in.cmd {
		case "ARG":
			name, value, _ := strings.Cut(in.args, "=")
			args = append(args, "${"+name+"}", value)
		case "FROM":
			if f.builder == "" {
				image, _, _ := strings.Cut(in.args, " ")
				f.builder = strings.NewReplacer(args...).Replace(image)
			}
			f.user = "" // USER applies to the stage it is in
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				if strings.HasPrefix(kv, "CGO_ENABLED=") {
					f.cgo = kv
				}
			}
		case "RUN":
			if strings.Contains(in.args, "go build") {
				f.buildCmd = in.args
			}
		case "USER":
			f.user = in.args
		case "ENTRYPOINT":
			f.entrypoint = in.args
		case "COPY":
			f.copiesSelf = f.copiesSelf || strings.HasPrefix(in.args, "services/"+svc+"/ ")
		}
	}
	return f
}

func TestDockerfileBuildsItsService(t *testing.T) {
	for _, path := range dockerfiles(t) {
		svc := strings.TrimPrefix(filepath.Base(path), "Dockerfile.")
		f := readFacts(t, path, svc)
		// The realtime worker links libopus and libpocketsphinx.
		cgo := "CGO_ENABLED=0"
		if svc == "realtime-worker" {
			cgo = "CGO_ENABLED=1"
		}
		tests := []struct {
			name string
			give string
			want string
		}{
			{name: "builder image", give: f.builder, want: "golang:1.26-bookworm"},
			{name: "cgo", give: f.cgo, want: cgo},
			{name: "build target", give: lastFields(f.buildCmd, 2), want: "/out/" + svc + " ./cmd/" + svc},
			{name: "runtime user", give: userKind(f.user), want: "non-root"},
			{name: "entrypoint", give: f.entrypoint, want: `["/usr/local/bin/` + svc + `"]`},
			{name: "copies services/" + svc, give: strconv.FormatBool(f.copiesSelf), want: "true"},
		}
		for _, tt := range tests {
			t.Run(svc+"/"+tt.name, func(t *testing.T) {
				if tt.give != tt.want {
					t.Errorf("%s: %s = %q, want %q", path, tt.name, tt.give, tt.want)
				}
			})
		}
	}
}

// lastFields returns the last n words of s.
func lastFields(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[max(0, len(w)-n):], " ")
}

func userKind(user string) string {
	name, _, _ := strings.Cut(user, ":")
	switch name {
	case "":
		return "unset (root)"
	case "root", "0":
		return "root"
	default:
		return "non-root"
	}
}
