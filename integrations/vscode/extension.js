// Starts `callint server` for the files callint reads: prompts and skills
// (Markdown), helper code, boards (JSON) and call logs. The server does the
// rest: diagnostics, the rule's page on hover, and the code actions.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

/** The files callint reads, as document selectors. */
const DOCUMENTS = [
  { scheme: "file", language: "markdown" },
  { scheme: "file", language: "python" },
  { scheme: "file", language: "javascript" },
  { scheme: "file", language: "typescript" },
  { scheme: "file", language: "shellscript" },
  { scheme: "file", language: "json" },
  { scheme: "file", pattern: "**/*.{jsonl,ndjson,log,txt,vtt,srt}" },
];

async function activate(context) {
  const settings = vscode.workspace.getConfiguration("callint");
  const server = { command: settings.get("path") || "callint", args: ["server"] };
  const options = {};
  if (settings.get("baseline")) options.baseline = settings.get("baseline");
  if (settings.get("config")) options.config = settings.get("config");
  if (typeof settings.get("debounceMs") === "number") options.debounceMs = settings.get("debounceMs");
  client = new LanguageClient(
    "callint",
    "callint",
    { run: server, debug: server },
    {
      documentSelector: DOCUMENTS,
      initializationOptions: options,
      // Logs that grow on disk, configurations and the baseline.
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{jsonl,ndjson,log,txt,vtt,srt,json,toml}"),
      },
    },
  );
  context.subscriptions.push(client);
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
