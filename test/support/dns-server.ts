/**
 * A small authoritative DNS server over UDP on loopback, for tests that
 * resolve names through a real resolver (Node's c-ares) and a real socket:
 * it answers A and CNAME queries for the names it is given (a name it holds
 * but not of the type asked is NODATA, any other NXDOMAIN), as CoreDNS
 * answers for a cluster's Services. RFC 1035 messages, one question each.
 */
import { createSocket, type Socket } from 'node:dgram';

export interface DnsRecords {
  /** Fully qualified names, ending in a dot. */
  [name: string]: { a?: string[]; cname?: string };
}

const TYPE_A = 1;
const TYPE_CNAME = 5;

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter((l) => l !== '');
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])), Buffer.from([0])]);
}

/** The question's name (lowercased, with the final dot), type and where the question ends. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } {
  let at = 12;
  const labels: string[] = [];
  for (let len = msg[at]!; len !== 0; len = msg[at]!) {
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('ascii'));
    at += len + 1;
  }
  at += 1;
  return { name: `${labels.join('.').toLowerCase()}.`, type: msg.readUInt16BE(at), end: at + 4 };
}

function record(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  // A pointer to the question's name, at offset 12.
  head.writeUInt16BE(0xc00c, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4);
  head.writeUInt32BE(5, 6);
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

function answer(query: Buffer, records: DnsRecords): Buffer {
  const q = readQuestion(query);
  const held = records[q.name];
  const answers: Buffer[] = [];
  if (held && q.type === TYPE_CNAME && held.cname) answers.push(record(TYPE_CNAME, encodeName(held.cname)));
  if (held && q.type === TYPE_A) for (const ip of held.a ?? []) answers.push(record(TYPE_A, Buffer.from(ip.split('.').map(Number))));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR, AA, the query's RD; RA; NOERROR, or NXDOMAIN for a name not held.
  header[2] = 0x84 | (query[2]! & 0x01);
  header[3] = 0x80 | (held ? 0 : 3);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, q.end), ...answers]);
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  address: string;
  /** Names asked, in order, as they came. */
  asked: string[];
  close(): Promise<void>;
}

export async function startDnsServer(records: DnsRecords): Promise<DnsServer> {
  const socket: Socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (msg, peer) => {
    asked.push(readQuestion(msg).name);
    socket.send(answer(msg, records), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
