#!/usr/bin/env node
// In-memory PostgreSQL (PGlite, with the pgvector extension) served over the
// PostgreSQL wire protocol on 127.0.0.1, for the store's pgvector tests
// (pkg/store/storetest.StartPGlite starts it).
//
//   node server.mjs [--port N] [--host H] [--exit-with-stdin] [--watchdog-seconds N]
//
//   --port N / PGLITE_PORT   port to listen on; 0 (the default) lets the OS
//                            pick one, which the ready line reports
//   --host H / PGLITE_HOST   address to bind (default 127.0.0.1)
//   --exit-with-stdin        exit when stdin reaches EOF, so the server dies
//                            with the process that started it
//   --watchdog-seconds N /   kill the server when the database thread has
//     PGLITE_WATCHDOG_SECONDS  been unresponsive this long (default 30; 0: never)
//
// Once it accepts connections it prints one line on stdout:
//
//   pglite ready postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
//
// PGlite is one single-user backend. @electric-sql/pglite-socket multiplexes
// clients onto it, but they then share one session: prepared statement
// names, advisory locks, SET and transactions leak between them. This server
// therefore admits one client at a time: further clients wait in FIFO order
// until the current one disconnects, and between two clients the session is
// reset (ROLLBACK, DISCARD ALL), as a pooler does between server
// connections. A client that keeps its connection open keeps everyone else
// waiting: use one client with one connection (a pgx pool with MaxConns 1).
//
// What PGlite does not do: COPY FROM STDIN (it breaks the connection and
// leaves the backend spinning; the watchdog then kills the server), cancel
// requests (answered by closing the connection), and startup parameters
// such as search_path or options (ignored; SET them after connecting).

import net from 'node:net'
import { parseArgs } from 'node:util'
import { Worker } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const CANCEL_REQUEST_CODE = 80877102

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PGLITE_PORT ?? '0' },
    host: { type: 'string', default: process.env.PGLITE_HOST ?? '127.0.0.1' },
    'exit-with-stdin': { type: 'boolean', default: false },
    'watchdog-seconds': { type: 'string', default: process.env.PGLITE_WATCHDOG_SECONDS ?? '30' },
  },
})

const port = Number.parseInt(args.port, 10)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid port ${JSON.stringify(args.port)}`)
  process.exit(2)
}
const watchdogSeconds = Number.parseInt(args['watchdog-seconds'], 10)
if (!Number.isInteger(watchdogSeconds) || watchdogSeconds < 0) {
  console.error(`invalid watchdog seconds ${JSON.stringify(args['watchdog-seconds'])}`)
  process.exit(2)
}

const db = await PGlite.create({ extensions: { vector } })
// Started after the boot, which itself keeps this thread busy for seconds.
if (watchdogSeconds > 0) startWatchdog(watchdogSeconds)

// The socket server does the protocol work on a private port; the front
// listener below decides who may talk to it.
const backend = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 })
await backend.start()
const backendPort = Number.parseInt(backend.getServerConn().split(':').pop(), 10)

const waiting = []
let busy = false

const front = net.createServer((client) => {
  client.setNoDelay(true)
  client.on('error', () => client.destroy())
  client.once('data', (first) => {
    client.pause()
    if (isCancelRequest(first)) {
      client.destroy()
      return
    }
    waiting.push({ client, first })
    admitNext()
  })
})

function isCancelRequest(buf) {
  return buf.length >= 8 && buf.readInt32BE(0) === 16 && buf.readInt32BE(4) === CANCEL_REQUEST_CODE
}

function admitNext() {
  if (busy) return
  let next
  while ((next = waiting.shift()) && next.client.destroyed) {
    // Gave up while waiting.
  }
  if (!next) return
  busy = true
  const { client, first } = next
  const upstream = net.connect(backendPort, '127.0.0.1')
  upstream.setNoDelay(true)
  let done = false
  const finish = () => {
    if (done) return
    done = true
    client.destroy()
    upstream.destroy()
    resetSession().then(() => {
      busy = false
      admitNext()
    })
  }
  upstream.on('connect', () => {
    upstream.write(first)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  client.on('close', finish)
  upstream.on('close', finish)
  upstream.on('error', finish)
}

// resetSession waits until the socket server has let go of the last client,
// then gives the next one a fresh session.
async function resetSession() {
  const giveUp = Date.now() + 5000
  while (backend.getStats().activeConnections > 0) {
    if (Date.now() > giveUp) {
      console.error('reset session: the socket server still holds the last client')
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  try {
    if (db.isInTransaction()) await db.exec('ROLLBACK')
    await db.exec('DISCARD ALL')
  } catch (err) {
    console.error('reset session:', err)
  }
}

// The backend runs on this thread. When it wedges (COPY FROM STDIN leaves
// it spinning) nothing here runs again, signals included, and every client
// would wait forever. A watchdog thread kills the process once this thread
// has missed its heartbeat for watchdogSeconds, so clients fail fast.
function startWatchdog(seconds) {
  const beat = new Int32Array(new SharedArrayBuffer(4))
  setInterval(() => Atomics.add(beat, 0, 1), 1000).unref()
  const source = `
    const { workerData } = require('node:worker_threads')
    const fs = require('node:fs')
    const beat = new Int32Array(workerData.buffer)
    let last = -1
    let missed = 0
    setInterval(() => {
      const now = Atomics.load(beat, 0)
      missed = now === last ? missed + 1 : 0
      last = now
      if (missed >= workerData.seconds) {
        fs.writeSync(2, 'pglite: the database thread has not responded for ' + workerData.seconds +
          's (wedged, e.g. by COPY FROM STDIN, which PGlite does not support); killing the server\\n')
        process.kill(process.pid, 'SIGKILL')
      }
    }, 1000)
  `
  new Worker(source, { eval: true, workerData: { buffer: beat.buffer, seconds } }).unref()
}

front.on('error', (err) => {
  console.error('listen:', err)
  process.exit(1)
})
front.listen(port, args.host, () => {
  const { port: actual } = front.address()
  const host = args.host.includes(':') ? `[${args.host}]` : args.host
  console.log(`pglite ready postgres://postgres@${host}:${actual}/postgres?sslmode=disable`)
})

let stopping = false
async function shutdown(code) {
  if (stopping) return
  stopping = true
  front.close()
  for (const { client } of waiting) client.destroy()
  await backend.stop().catch(() => {})
  await db.close().catch(() => {})
  process.exit(code)
}
process.on('SIGINT', () => shutdown(0))
process.on('SIGTERM', () => shutdown(0))
if (args['exit-with-stdin']) {
  process.stdin.on('end', () => shutdown(0))
  process.stdin.on('error', () => shutdown(0))
  process.stdin.resume()
}
