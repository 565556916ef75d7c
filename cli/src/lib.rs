//! The `cuecard` command: serve a scenario on the OpenAI and Anthropic wire protocols, split text into word-like
//! tokens, validate scenario files. A library, so that the binary and the Python wheel's `cuecard` console command
//! run the very same code.
//!
//! Exit codes: 0 success; 1 a scenario is invalid; 2 bad input or usage (invalid UTF-8, unreadable file, a port
//! in use).

mod health;
mod mcp;
mod mcp_record;
mod record;

use clap::{CommandFactory, Parser, Subcommand};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

/// An exit code.
type ExitCode = u8;

/// The journal `serve` keeps unless told otherwise: about 85 MB at the measured 8.5 KB per entry.
pub const DEFAULT_JOURNAL_LIMIT: usize = 10_000;

#[derive(Parser)]
#[command(name = "cuecard", version, about = "A deterministic stand-in for an LLM in tests")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The command's definition (its arguments and help), for generated docs: the book's CLI reference is rendered
/// from it.
pub fn command() -> clap::Command {
    Cli::command()
}

/// The scenario `cuecard serve` answers with when no file is given (documented in the book, docs/start/wire-server.md).
const DEFAULT_SCENARIO: &str = include_str!("../../tests/scenarios/default.json");

#[derive(Subcommand)]
enum Command {
    /// Serve a scenario on 127.0.0.1 for OpenAI and Anthropic clients; stop with Ctrl-C or SIGTERM.
    Serve {
        /// The scenario file (JSON, or YAML for .yaml/.yml); without it, an embedded tour of cuecard.
        #[arg(long)]
        scenario: Option<PathBuf>,
        #[command(flatten)]
        options: ServeOptions,
    },
    /// Serve one MCP server of a scenario over stdio: JSON-RPC lines on stdin and stdout (nothing else on stdout),
    /// problems on stderr; exits at the end of stdin, or when a step drops the connection.
    Mcp {
        /// The scenario file with an `mcp` section (JSON, or YAML for .yaml/.yml).
        #[arg(long)]
        scenario: PathBuf,
        /// The server to serve, by name; the first of the scenario when not given.
        #[arg(long)]
        server: Option<String>,
        /// Skip scripted delays (virtual times are still recorded in the journal).
        #[arg(long)]
        instant: bool,
        /// Write the MCP journal to this file (JSON) at exit: `{"entries": [...], "unused_steps": [...]}`.
        #[arg(long)]
        journal: Option<PathBuf>,
    },
    /// Read UTF-8 text from stdin and print its word-like tokens as one JSON array.
    Tokenize {
        /// Print only the number of tokens.
        #[arg(long)]
        count: bool,
    },
    /// Record real provider traffic: a loopback proxy that forwards each request to the upstream of its protocol,
    /// streams the reply back as it arrives, and writes every exchange to a recording (a scenario any cuecard
    /// replays). Keys and credential headers are never written.
    Record {
        /// Where to forward: a URL for every protocol (`https://api.openai.com`), or `PROTOCOL=URL` for one of
        /// openai, anthropic, gemini, ollama, bedrock, azure, mcp, a2a. The client's path is kept (an A2A agent's
        /// `a2a=URL` is its base URL: the client on `<proxy>/a2a` reaches its card and JSON-RPC endpoint there, and
        /// the card it reads points back at the proxy). None given: the providers' public APIs (OpenAI, Anthropic,
        /// Gemini, Ollama on 127.0.0.1:11434).
        #[arg(long = "upstream", value_parser = upstream)]
        upstreams: Vec<String>,
        /// The recording (YAML for .yaml/.yml, JSON otherwise), each exchange appended to it as it ends.
        #[arg(long)]
        out: PathBuf,
        /// The address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// once: record when --out does not exist, else replay it; new: replay it and record what it lacks; all:
        /// record everything anew; none: replay only.
        #[arg(long, default_value = "once", value_parser = record_mode)]
        mode: cuecard::record::RecordMode,
        /// A PEM file of certificates trusted for upstreams, beside Mozilla's roots (a private CA).
        #[arg(long)]
        upstream_ca: Option<PathBuf>,
        /// A text never written (replaced by [REDACTED]); repeatable. Keys the client sends are always redacted.
        #[arg(long = "redact")]
        redact_texts: Vec<String>,
        /// A request field written as [REDACTED] and not compared on replay (`messages[*].content`); repeatable.
        #[arg(long = "redact-field")]
        redact_fields: Vec<String>,
        /// Record even though the CI environment variable is set (a CI run replays; recording there is usually
        /// a mistake).
        #[arg(long)]
        allow_in_ci: bool,
        /// An MCP server over stdio to record instead (`-- npx -y @modelcontextprotocol/server-everything`): cuecard
        /// spawns it and relays the client's stdin and the server's stdout, writing its tools, resources, prompts
        /// and each call's result into the recording's `mcp` section (replay: `cuecard mcp --scenario FILE`). An
        /// MCP server over HTTP is recorded by the proxy: `--upstream mcp=URL`, the client on `<proxy>/mcp`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Work with recordings: `cuecard recording import --from vcrpy CASSETTE --out FILE`.
    Recording {
        #[command(subcommand)]
        command: RecordingCommand,
    },
    /// Ask a running server whether it answers (GET /_cuecard/health): exit 0 when it does, 1 when not. The
    /// container image's HEALTHCHECK, and a script's wait for `cuecard serve`.
    Health {
        /// The server's base URL.
        #[arg(default_value = "http://127.0.0.1:8080")]
        url: String,
        /// The admin token, when the server requires one.
        #[arg(long, env = "CUECARD_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
        /// How long to wait for the answer (milliseconds).
        #[arg(long, default_value_t = 2000)]
        timeout_ms: u64,
    },
    /// Compare recordings with what cuecard sends for the same answers: for each recorded exchange, fields the real
    /// API sent that cuecard does not (or of another type), kind names that differ, a stream's event types and their
    /// order, the status, content type and the headers SDKs read. Exit 1 when something drifted, 0 when not.
    Drift {
        /// The recordings (cuecard's, YAML or JSON, or vcrpy cassettes).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON report per file (`{"file", "drifted", "exchanges", "not_compared"}`) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check scenario files (JSON, or YAML for .yaml/.yml) and print each problem with its path.
    Validate {
        /// The scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// An `--upstream` value, checked by core's rule and kept as given.
fn upstream(text: &str) -> Result<String, String> {
    text.parse::<cuecard::record::Upstream>().map(|_| text.to_string()).map_err(|e| e.message().to_string())
}

/// A `--mode` value (none, once, new, all), read by core's rule.
fn record_mode(text: &str) -> Result<cuecard::record::RecordMode, String> {
    text.parse().map_err(|e: cuecard::Error| e.message().to_string())
}

#[derive(Subcommand)]
enum RecordingCommand {
    /// Convert another tool's recording of LLM calls into a cuecard recording (a scenario every cuecard replays):
    /// each model call becomes a route matching its request, with the reply kept byte for byte; other requests
    /// (a model list) are left out and named. Keys and credential headers are never written.
    Import {
        /// The format of the input: vcrpy (pytest-recording's and pydantic-ai's cassettes).
        #[arg(long = "from", value_parser = ["vcrpy"])]
        format: String,
        /// The cassette (YAML or JSON).
        input: PathBuf,
        /// The recording to write (YAML for .yaml/.yml, JSON otherwise).
        #[arg(long)]
        out: PathBuf,
        /// A text never written (replaced by [REDACTED]); repeatable.
        #[arg(long = "redact")]
        redact_texts: Vec<String>,
        /// A request field written as [REDACTED] and not compared on replay; repeatable.
        #[arg(long = "redact-field")]
        redact_fields: Vec<String>,
    },
}

/// `cuecard recording import`: the cassette read by core's importer, written as a recording.
fn import_recording(
    input: &std::path::Path,
    out: &std::path::Path,
    options: cuecard::record::RecordOptions,
) -> Result<ExitCode, String> {
    let shown = input.display();
    // Bounded and regular files only, as `serve --scenario` reads (a FIFO or /dev/zero would never end).
    let text = cuecard::Scenario::read_text(input).map_err(|e| e.to_string())?;
    let imported = cuecard::record::import_vcrpy(&text, options).map_err(|e| format!("{shown}: {e}"))?;
    let written = imported.recorder.to_text(cuecard::record::is_yaml(out)).map_err(|e| e.to_string())?;
    std::fs::write(out, written).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let mut report = std::io::stdout().lock();
    for (index, why) in &imported.skipped {
        writeln!(report, "{shown}: interaction {index} left out: {why}").map_err(|e| e.to_string())?;
    }
    let recorded = imported.recorder.recorded();
    writeln!(report, "{shown}: {recorded} exchange(s) imported into {}", out.display()).map_err(|e| e.to_string())?;
    Ok(0)
}

/// Runs the command line `args` (the first is the program name) and returns the exit code. Usage errors print
/// clap's message and exit 2; `--help` and `--version` print and exit 0.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Serve { scenario, options } => serve(scenario, options),
        Command::Record {
            upstreams,
            out,
            host,
            port,
            mode,
            upstream_ca,
            redact_texts,
            redact_fields,
            allow_in_ci,
            command,
        } => {
            let recording = cuecard::record::RecordingSettings {
                mode,
                upstream: upstreams,
                redact: redact_texts,
                redact_fields,
                allow_in_ci,
                description: Some("recorded by cuecard record".into()),
            };
            if !command.is_empty() {
                return match mcp_record::record_stdio(&out, &recording, &command) {
                    Ok(code) => code,
                    Err(message) => {
                        let _ = writeln!(std::io::stderr(), "cuecard: {message}");
                        2
                    }
                };
            }
            let proxy = cuecard::record::ProxyOptions { host, port, upstream_ca };
            let settings = record::RecordSettings { out, recording, proxy };
            Signals::register().and_then(|signals| record::record(settings, || signals.wait()))
        }
        Command::Recording {
            command: RecordingCommand::Import { format: _, input, out, redact_texts, redact_fields },
        } => {
            let description = Some(format!("imported by cuecard recording import from {}", input.display()));
            import_recording(
                &input,
                &out,
                cuecard::record::RecordOptions { redact_texts, redact_fields, description, ..Default::default() },
            )
        }
        Command::Mcp { scenario, server, instant, journal } => match read_scenario(Some(&scenario)) {
            Ok(Ok(scenario)) => mcp::serve_stdio(&scenario, server.as_deref(), instant, journal.as_deref()),
            Ok(Err(code)) => Ok(code),
            Err(message) => Err(message),
        },
        Command::Tokenize { count } => tokenize(count),
        Command::Validate { files } => validate(&files),
        Command::Drift { files, json } => drift(&files, json),
        Command::Health { url, admin_token, timeout_ms } => {
            health::check(&url, admin_token.as_deref(), std::time::Duration::from_millis(timeout_ms.max(1)))
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "cuecard: {message}");
            2
        }
    }
}

/// How `cuecard serve` serves (its flags but the scenario).
#[derive(clap::Args)]
struct ServeOptions {
    /// The address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// The port; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Skip scripted delays (virtual times are still recorded in the journal).
    #[arg(long)]
    instant: bool,
    /// Keep only the newest N journal entries (counters still count every request), so a long run's memory
    /// stays flat; raise it to keep more.
    #[arg(long, default_value_t = DEFAULT_JOURNAL_LIMIT)]
    journal_limit: usize,
    /// Close a connection that takes longer than this to send a request's headers, or its body (answered 408),
    /// or stays idle this long between requests (milliseconds; 0 never closes them).
    #[arg(long, default_value_t = cuecard::DEFAULT_IDLE_TIMEOUT_MS)]
    idle_timeout_ms: u64,
    /// Require this token on the admin paths (/_cuecard/...): `Authorization: Bearer <token>` or
    /// `x-cuecard-admin-token: <token>`. Use it with a --host other than loopback.
    #[arg(long, env = "CUECARD_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Keep at most this many tests live under /t/{id}/ (each its own copy of the scenario and journal); beyond
    /// it the least recently used is dropped. 0 turns the prefix off.
    #[arg(long, default_value_t = cuecard::isolation::DEFAULT_MAX_TESTS)]
    max_tests: usize,
    /// Journal entries the tests under /t/{id}/ keep between them: each keeps its newest
    /// journal-total / max-tests (and never more than --journal-limit), so memory has one bound for the server.
    #[arg(long, default_value_t = cuecard::isolation::DEFAULT_JOURNAL_TOTAL)]
    journal_total: usize,
    /// Send an OpenTelemetry span of every mocked call (GenAI conventions, OTLP/HTTP protobuf, batched) to this
    /// collector: its base URL (`http://127.0.0.1:4318`, to which /v1/traces is added) or its traces URL.
    #[arg(long, env = "CUECARD_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    /// Serve https:// and wss:// too, on the same port: a certificate for loopback is made at start by a test CA,
    /// whose PEM is written to this file for the test to trust (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, `ca`). Clients
    /// that only connect with wss: (openai-node's realtime, google-genai's live API) need it.
    #[arg(long, value_name = "CA_FILE")]
    tls: Option<String>,
}

/// `, 1 MCP server (2 tools, 5 steps)` for a scenario with MCP servers, else nothing.
fn mcp_summary(scenario: &cuecard::Scenario) -> String {
    let Some(mcp) = &scenario.script().settings.mcp else { return String::new() };
    let tools: Vec<&cuecard::mcp::McpTool> = mcp.servers.iter().flat_map(|s| &s.tools).collect();
    let steps: usize = tools.iter().map(|t| t.steps.len()).sum();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        ", {} ({}, {})",
        plural(mcp.servers.len(), "MCP server"),
        plural(tools.len(), "tool"),
        plural(steps, "step")
    )
}

/// The scenario at `path` (the embedded default without one); an invalid one is printed, each problem once, and is
/// exit code 1 (as `validate` says of the same file).
fn read_scenario(path: Option<&std::path::Path>) -> Result<Result<cuecard::Scenario, ExitCode>, String> {
    let scenario = match path {
        Some(path) => cuecard::Scenario::from_path(path),
        None => cuecard::Scenario::from_json(DEFAULT_SCENARIO),
    };
    match scenario {
        Ok(s) => Ok(Ok(s)),
        Err(error) if error.kind() == cuecard::ErrorKind::InvalidScenario => {
            // Each problem once, then what it means; not the summary message, which repeats the first.
            let mut err = std::io::stderr().lock();
            let issues: Vec<String> = if error.issues().is_empty() {
                vec![error.to_string()]
            } else {
                error.issues().iter().map(ToString::to_string).collect()
            };
            for issue in &issues {
                let _ = writeln!(err, "cuecard: {issue}");
            }
            let count = issues.len();
            let plural = if count == 1 { "" } else { "s" };
            let _ = writeln!(err, "cuecard: the scenario has {count} problem{plural}; nothing is served");
            Ok(Err(1))
        }
        Err(error) => Err(error.to_string()),
    }
}

fn serve(scenario: Option<PathBuf>, options: ServeOptions) -> Result<ExitCode, String> {
    let path = scenario;
    let scenario = match read_scenario(path.as_deref())? {
        Ok(scenario) => scenario,
        Err(code) => return Ok(code),
    };
    if let (Some(path), Some((day, Some(max)))) = (&path, scenario.recording_age()) {
        let today = cuecard::record::today();
        if let Some(warning) = cuecard::record::age_problem(&path.display().to_string(), day, max, today) {
            writeln!(std::io::stderr(), "cuecard: warning: {warning}").map_err(|e| e.to_string())?;
        }
    }
    let mock = std::sync::Arc::new(cuecard::MockModel::from_scenario(&scenario).map_err(|e| e.to_string())?);
    mock.set_journal_limit(Some(options.journal_limit));
    let server_options = cuecard::ServerOptions {
        host: options.host,
        port: options.port,
        instant: options.instant,
        idle_timeout_ms: options.idle_timeout_ms,
        admin_token: options.admin_token.clone(),
        max_tests: options.max_tests,
        journal_total: options.journal_total,
        otlp_endpoint: options.otlp_endpoint.clone(),
        tls_cert: options.tls.clone(),
    };
    if !options.host.is_loopback() {
        // The admin surface replaces the script and reads every request; beyond loopback anyone who can reach the
        // address can do both.
        let protection = if options.admin_token.is_some() {
            "the admin paths require the --admin-token"
        } else {
            "anyone who can reach it can read the journal and replace the script; set --admin-token to protect /_cuecard/"
        };
        let _ =
            writeln!(std::io::stderr(), "cuecard: warning: serving on {} (not loopback): {protection}", options.host);
    }
    let signals = Signals::register()?;
    let server = cuecard::Server::start_with(mock, server_options).map_err(|e| {
        let in_use = e.context().get("io_error").and_then(|v| v.as_str()) == Some("AddrInUse");
        if in_use {
            format!("{e}\n  another program serves on that port: pick another with --port, or --port 0 for a free one")
        } else {
            e.to_string()
        }
    })?;
    {
        let mut out = std::io::stdout().lock();
        let mcp_servers: Vec<String> =
            scenario.script().settings.mcp.iter().flat_map(|m| &m.servers).map(|s| s.name.clone()).collect();
        let mut lines = vec![
            format!("OpenAI base URL:    {}", server.openai_base_url()),
            format!("Anthropic base URL: {}", server.anthropic_base_url()), // the official SDKs add /v1
            // The AI SDK's Anthropic provider appends only `/messages`.
            format!("AI SDK Anthropic:   {}/v1", server.anthropic_base_url()),
            format!("admin:              {}/_cuecard/journal", server.base_url()),
            format!(
                "journal:            the newest {} requests (--journal-limit; counters count all)",
                options.journal_limit
            ),
            format!(
                "tests:              under /t/{{id}}/, at most {} live, each keeping its newest {} requests \
                 (--max-tests, --journal-total {})",
                options.max_tests,
                server.journal_per_test(),
                options.journal_total
            ),
            format!("scenario:           {}", scenario.description().unwrap_or("(no description)")),
        ];
        if let Some(endpoint) = &options.otlp_endpoint {
            lines.push(format!("OpenTelemetry:      a span per mocked call to {endpoint}"));
        }
        if let Some(ca) = &options.tls {
            lines.push(format!("TLS:                https:// and wss://{} too; trust the CA in {ca}", server.addr()));
        }
        if let Some(first) = mcp_servers.first() {
            let each = if mcp_servers.len() > 1 {
                format!("; /mcp/{{name}} for {}", mcp_servers.join(", "))
            } else {
                String::new()
            };
            lines.push(format!("MCP (Streamable HTTP): {}/mcp ({first}{each})", server.base_url()));
        }
        for line in lines {
            writeln!(out, "{line}").map_err(|e| format!("cannot write stdout: {e}"))?;
        }
        out.flush().map_err(|e| format!("cannot write stdout: {e}"))?;
    }
    signals.wait()?;
    server.stop();
    // The process ends here: its memory goes back to the system at once, so the journal (every request the run
    // kept, up to --journal-limit) is not freed entry by entry first: about 2k instructions per kept request
    // (bench/server-cost.sh, 2026-12-04), all spent after the last reply.
    std::mem::forget(server);
    let _ = writeln!(std::io::stderr(), "cuecard: stopped");
    Ok(0)
}

/// Ctrl-C (SIGINT) and SIGTERM, registered before the server starts: once it serves, a flood of connections may
/// use up the file descriptors, and a wait set up only then would fail and end the process.
struct Signals {
    runtime: tokio::runtime::Runtime,
    #[cfg(unix)]
    streams: (tokio::signal::unix::Signal, tokio::signal::unix::Signal),
}

impl Signals {
    fn register() -> Result<Signals, String> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        #[cfg(unix)]
        let streams = {
            use tokio::signal::unix::{signal, SignalKind};
            let _context = runtime.enter();
            (
                signal(SignalKind::interrupt()).map_err(|e| e.to_string())?,
                signal(SignalKind::terminate()).map_err(|e| e.to_string())?,
            )
        };
        Ok(Signals {
            runtime,
            #[cfg(unix)]
            streams,
        })
    }

    /// Blocks until one of the signals arrives.
    fn wait(self) -> Result<(), String> {
        #[cfg(unix)]
        {
            let (mut interrupt, mut terminate) = self.streams;
            self.runtime.block_on(async {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            });
            Ok(())
        }
        #[cfg(not(unix))]
        {
            self.runtime.block_on(tokio::signal::ctrl_c()).map_err(|e| e.to_string())
        }
    }
}

fn tokenize(count: bool) -> Result<ExitCode, String> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read stdin: {e}"))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("stdin is not valid UTF-8: invalid byte at offset {}", e.valid_up_to()))?;
    let mut out = std::io::stdout().lock();
    let written = if count {
        writeln!(out, "{}", cuecard::count_tokens(text))
    } else {
        let tokens: Vec<&str> = cuecard::tokenize(text).collect();
        let json = serde_json::to_string(&tokens).map_err(|e| e.to_string())?;
        writeln!(out, "{json}")
    };
    written.map_err(|e| format!("cannot write stdout: {e}"))?;
    Ok(0)
}

/// `cuecard drift`: core's drift report of each recording; 1 when one drifted, 2 when one cannot be read.
fn drift(files: &[PathBuf], json: bool) -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    let mut worst = 0u8;
    for file in files {
        let shown = file.display().to_string();
        let report = cuecard::Scenario::read_text(file).and_then(|text| cuecard::record::drift_report(&text));
        let text = match report {
            Ok(report) => {
                if report.drifted() {
                    worst = worst.max(1);
                }
                if json {
                    let mut document = report.to_json();
                    if let Some(fields) = document.as_object_mut() {
                        fields.insert("file".into(), serde_json::Value::String(shown));
                    }
                    format!("{document}\n")
                } else {
                    report.to_text(&shown)
                }
            }
            Err(error) => {
                worst = 2;
                format!("{shown}: {error} ({})\n", error.code())
            }
        };
        out.write_all(text.as_bytes()).map_err(|e| format!("cannot write stdout: {e}"))?;
    }
    Ok(worst)
}

fn validate(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    let mut worst = 0u8;
    for file in files {
        let shown = file.display();
        let lines = match cuecard::Scenario::from_path(file) {
            Ok(scenario) => {
                vec![format!(
                    "{shown}: ok ({} routes, {} steps{})",
                    scenario.routes().len(),
                    scenario.step_count(),
                    mcp_summary(&scenario)
                )]
            }
            Err(error) if error.kind() == cuecard::ErrorKind::InvalidScenario => {
                worst = worst.max(1);
                error.issues().iter().map(|issue| format!("{shown}: {issue}")).collect()
            }
            Err(error) => {
                worst = 2;
                vec![format!("{shown}: {} ({})", error, error.code())]
            }
        };
        for line in lines {
            writeln!(out, "{line}").map_err(|e| format!("cannot write stdout: {e}"))?;
        }
    }
    Ok(worst)
}
