//! The `cuecard` command: split text into word-like tokens, validate scenario files.
//!
//! Exit codes: 0 success; 1 a scenario is invalid; 2 bad input or usage (invalid UTF-8, unreadable file).

use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cuecard", version, about = "A deterministic stand-in for an LLM in tests")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read UTF-8 text from stdin and print its word-like tokens as one JSON array.
    Tokenize {
        /// Print only the number of tokens.
        #[arg(long)]
        count: bool,
    },
    /// Check scenario files (JSON, or YAML for .yaml/.yml) and print each problem with its path.
    Validate {
        /// The scenario files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Tokenize { count } => tokenize(count),
        Command::Validate { files } => validate(&files),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "cuecard: {message}");
            ExitCode::from(2)
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
    Ok(ExitCode::SUCCESS)
}

fn validate(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    let mut worst = 0u8;
    for file in files {
        let shown = file.display();
        let lines = match cuecard::Scenario::from_path(file) {
            Ok(scenario) => {
                vec![format!("{shown}: ok ({} routes, {} steps)", scenario.routes().len(), scenario.step_count())]
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
    Ok(ExitCode::from(worst))
}
