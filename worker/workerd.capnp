# workerd config for running the built Worker locally (worker/out/, from
# `go run ./worker/build`): the same modules wrangler would upload, and the
# page as a disk service bound as ASSETS (Cloudflare's static assets).
#
#   cd worker && npx workerd serve workerd.capnp \
#     --directory-path assets=$PWD/out/public --socket-addr http=127.0.0.1:8787
#
# Embedded paths are relative to this file; the assets path must be given on
# the command line (workerd resolves it against its working directory).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .gputriage),
    (name = "assets", disk = (writable = false)),
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:8787", http = (), service = "main"),
  ],
);

const gputriage :Workerd.Worker = (
  modules = [
    (name = "entry.mjs", esModule = embed "out/entry.mjs"),
    (name = "worker.mjs", esModule = embed "out/worker.mjs"),
    (name = "wasm_exec.js", esModule = embed "out/wasm_exec.js"),
    (name = "runtime.mjs", esModule = embed "out/runtime.mjs"),
    (name = "app.wasm", wasm = embed "out/app.wasm"),
    (name = "sqlite.mjs", esModule = embed "out/sqlite.mjs"),
    (name = "sqlite3.wasm", wasm = embed "out/sqlite3.wasm"),
    (name = "progress.wasm", wasm = embed "out/progress.wasm"),
  ],
  compatibilityDate = "2026-10-01",
  bindings = [
    (name = "ASSETS", service = "assets"),
  ],
);
