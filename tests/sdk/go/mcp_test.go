// The Go MCP clients, unmodified, against cuecard's scripted MCP server (issue #54): the official SDK
// (github.com/modelcontextprotocol/go-sdk) and mark3labs/mcp-go, each over stdio (`cuecard mcp`) and over Streamable
// HTTP (`/mcp` on `cuecard serve`), in the handshake-era revision 2025-06-18 and the stateless 2026-07-28 one. The
// server is tests/scenarios/mcp-agent.json; each case gets a fresh server, so each sees the script from its start.
package sdkgo_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mark3client "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mark3 "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The revisions each client is pinned to: the last with the initialize handshake, and the stateless one.
var revisions = []string{"2025-06-18", "2026-07-28"}

// What every client must see: the tool listed, a result, a tool error, and the resource's text.
type seen struct {
	revision, tools, paris, notes string
	atlantisIsError               bool
}

func want(revision string) seen {
	return seen{revision, "get_forecast", "22 °C, sunny", "Bring an umbrella on Fridays.", true}
}

// The cuecard binary the README's test command built.
func binary(t *testing.T) string {
	if bin := os.Getenv("CUECARD_BIN"); bin != "" {
		return bin
	}
	target := os.Getenv("CARGO_TARGET_DIR")
	if target == "" {
		target = filepath.Join("..", "..", "..", "target")
	}
	bin, err := filepath.Abs(filepath.Join(target, "debug", "cuecard"))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func scenario(t *testing.T) string {
	path, err := filepath.Abs(filepath.Join("..", "..", "scenarios", "mcp-agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// serve starts `cuecard serve` on a free port for the test and returns its MCP endpoint.
func serve(t *testing.T) string {
	cmd := exec.Command(binary(t), "serve", "--port", "0", "--instant", "--scenario", scenario(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		// "OpenAI base URL:    http://127.0.0.1:PORT/v1"
		fields := strings.Fields(lines.Text())
		if len(fields) > 0 && strings.HasPrefix(fields[len(fields)-1], "http://") {
			go func() {
				for lines.Scan() {
				}
			}()
			return strings.TrimSuffix(fields[len(fields)-1], "/v1") + "/mcp"
		}
	}
	t.Fatal("cuecard serve printed no address")
	return ""
}

func context10s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestOfficialGoSdk(t *testing.T) {
	for _, revision := range revisions {
		for _, over := range []string{"stdio", "http"} {
			t.Run(over+" "+revision, func(t *testing.T) {
				ctx := context10s(t)
				var connection mcp.Transport
				if over == "stdio" {
					connection = &mcp.CommandTransport{Command: exec.Command(binary(t), "mcp", "--scenario", scenario(t))}
				} else {
					connection = &mcp.StreamableClientTransport{Endpoint: serve(t), MaxRetries: -1}
				}
				client := mcp.NewClient(&mcp.Implementation{Name: "cuecard-go-test", Version: "1.0.0"}, nil)
				session, err := client.Connect(ctx, connection, &mcp.ClientSessionOptions{ProtocolVersion: revision})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer session.Close()
				tools, err := session.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				call := func(city string) *mcp.CallToolResult {
					result, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": city}})
					if err != nil {
						t.Fatalf("tools/call %s: %v", city, err)
					}
					return result
				}
				paris, atlantis := call("Paris"), call("Atlantis")
				notes, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///notes.txt"})
				if err != nil {
					t.Fatalf("resources/read: %v", err)
				}
				got := seen{session.InitializeResult().ProtocolVersion, tools.Tools[0].Name,
					paris.Content[0].(*mcp.TextContent).Text, notes.Contents[0].Text, atlantis.IsError}
				if got != want(revision) {
					t.Fatalf("got %+v, want %+v", got, want(revision))
				}
			})
		}
	}
}

func TestMark3labsMcpGo(t *testing.T) {
	for _, revision := range revisions {
		for _, over := range []string{"stdio", "http"} {
			t.Run(over+" "+revision, func(t *testing.T) {
				ctx := context10s(t)
				var client *mark3client.Client
				var err error
				if over == "stdio" {
					client, err = mark3client.NewStdioMCPClient(binary(t), nil, "mcp", "--scenario", scenario(t))
				} else {
					client, err = mark3client.NewStreamableHttpClient(serve(t), transport.WithHTTPTimeout(5*time.Second))
					if err == nil {
						err = client.Start(ctx)
					}
				}
				if err != nil {
					t.Fatalf("start: %v", err)
				}
				defer client.Close()
				initialize := mark3.InitializeRequest{}
				initialize.Params.ProtocolVersion = revision
				initialize.Params.ClientInfo = mark3.Implementation{Name: "cuecard-go-test", Version: "1.0.0"}
				initialized, err := client.Initialize(ctx, initialize)
				if err != nil {
					t.Fatalf("initialize: %v", err)
				}
				tools, err := client.ListTools(ctx, mark3.ListToolsRequest{})
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				call := func(city string) *mark3.CallToolResult {
					request := mark3.CallToolRequest{}
					request.Params.Name = "get_forecast"
					request.Params.Arguments = map[string]any{"city": city}
					result, err := client.CallTool(ctx, request)
					if err != nil {
						t.Fatalf("tools/call %s: %v", city, err)
					}
					return result
				}
				paris, atlantis := call("Paris"), call("Atlantis")
				read := mark3.ReadResourceRequest{}
				read.Params.URI = "file:///notes.txt"
				notes, err := client.ReadResource(ctx, read)
				if err != nil {
					t.Fatalf("resources/read: %v", err)
				}
				got := seen{initialized.ProtocolVersion, tools.Tools[0].Name,
					paris.Content[0].(mark3.TextContent).Text, notes.Contents[0].(mark3.TextResourceContents).Text,
					atlantis.IsError}
				if got != want(revision) {
					t.Fatalf("got %+v, want %+v", got, want(revision))
				}
			})
		}
	}
}
