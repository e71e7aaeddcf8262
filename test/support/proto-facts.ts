/**
 * Protobuf descriptors reduced to their wire facts (services, methods,
 * messages, fields, enums), for the tests that compare our .proto files with
 * the published ones (test/wire.test.ts, test/workloadapi/wire.test.ts).
 */
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { MessageTypeDefinition, PackageDefinition } from '@grpc/proto-loader';

export interface FieldFact {
  number: number;
  type: string;
  repeated: boolean;
  oneof?: string;
}
export interface MethodFact {
  request: string;
  response: string;
  requestStream: boolean;
  responseStream: boolean;
}
export interface WireFacts {
  services: Record<string, Record<string, MethodFact>>;
  messages: Record<string, Record<string, FieldFact>>;
  enums: Record<string, Record<string, number>>;
}

// google.protobuf.*DescriptorProto in object form (enums as names, unset fields absent).
interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName?: string;
  oneofIndex?: number;
}
interface EnumDescriptor {
  name: string;
  value?: { name: string; number: number }[];
}
interface MessageDescriptor {
  name: string;
  field?: FieldDescriptor[];
  oneofDecl?: { name: string }[];
  nestedType?: MessageDescriptor[];
  enumType?: EnumDescriptor[];
}
interface MethodDescriptor {
  name: string;
  inputType: string;
  outputType: string;
  clientStreaming?: boolean;
  serverStreaming?: boolean;
}
export interface FileDescriptor {
  name?: string;
  package?: string;
  messageType?: MessageDescriptor[];
  enumType?: EnumDescriptor[];
  service?: { name: string; method?: MethodDescriptor[] }[];
}

const SCALARS: Record<string, string> = {
  TYPE_STRING: 'string',
  TYPE_BOOL: 'bool',
  TYPE_INT32: 'int32',
  TYPE_INT64: 'int64',
  TYPE_UINT32: 'uint32',
  TYPE_UINT64: 'uint64',
  TYPE_BYTES: 'bytes',
  TYPE_DOUBLE: 'double',
  TYPE_FLOAT: 'float',
  TYPE_SINT32: 'sint32',
  TYPE_SINT64: 'sint64',
  TYPE_FIXED32: 'fixed32',
  TYPE_FIXED64: 'fixed64',
};

/**
 * The descriptor set the runtime built from .proto files: the same
 * descriptors grpc-js serialises with. Decoded from bytes so that field
 * presence (e.g. oneof membership) is not blurred by default values. `anyType`
 * names a message of the definition: every message carries the whole set.
 */
export function fileDescriptors(def: PackageDefinition, anyType: string): FileDescriptor[] {
  const any = def[anyType] as MessageTypeDefinition<object, object>;
  const fileType = (
    descriptor as unknown as {
      FileDescriptorProto: { decode(b: Uint8Array): object; toObject(m: object, o: object): FileDescriptor };
    }
  ).FileDescriptorProto;
  return any.fileDescriptorProtos.map((buf: Buffer) => fileType.toObject(fileType.decode(buf), { enums: String }));
}

/** Descriptors keep type names as written; resolve them as protoc does, innermost scope first. */
function resolveTypeName(written: string, scope: string, known: Set<string>): string {
  if (written.startsWith('.')) return written.slice(1);
  const parts = scope.split('.');
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), written].join('.');
    if (known.has(candidate)) return candidate;
  }
  throw new Error(`cannot resolve type ${written} from ${scope}`);
}

function qualify(pkg: string | undefined, name: string): string {
  return pkg ? `${pkg}.${name}` : name;
}

function collectNames(name: string, desc: MessageDescriptor, into: Set<string>): void {
  into.add(name);
  for (const nested of desc.nestedType ?? []) collectNames(`${name}.${nested.name}`, nested, into);
  for (const nested of desc.enumType ?? []) into.add(`${name}.${nested.name}`);
}

/**
 * Reduces the files `include` picks to the shape of wire-facts.json: every
 * service, method, message, field and enum value, type names resolved.
 */
export function wireFacts(files: FileDescriptor[], include: (file: FileDescriptor) => boolean): WireFacts {
  const out: WireFacts = { services: {}, messages: {}, enums: {} };
  const known = new Set<string>();
  for (const file of files) {
    for (const m of file.messageType ?? []) collectNames(qualify(file.package, m.name), m, known);
    for (const e of file.enumType ?? []) known.add(qualify(file.package, e.name));
  }

  const addEnum = (name: string, desc: EnumDescriptor): void => {
    out.enums[name] = Object.fromEntries((desc.value ?? []).map((v) => [v.name, v.number]));
  };
  const addMessage = (name: string, desc: MessageDescriptor): void => {
    const fields: Record<string, FieldFact> = {};
    for (const f of desc.field ?? []) {
      const scalar = SCALARS[f.type];
      const type = scalar ?? resolveTypeName(f.typeName ?? '', name, known);
      const fact: FieldFact = { number: f.number, type, repeated: f.label === 'LABEL_REPEATED' };
      if (f.oneofIndex !== undefined) fact.oneof = desc.oneofDecl?.[f.oneofIndex]?.name ?? `#${f.oneofIndex}`;
      fields[f.name] = fact;
    }
    out.messages[name] = fields;
    for (const nested of desc.nestedType ?? []) addMessage(`${name}.${nested.name}`, nested);
    for (const nested of desc.enumType ?? []) addEnum(`${name}.${nested.name}`, nested);
  };

  for (const file of files) {
    if (!include(file)) continue;
    for (const m of file.messageType ?? []) addMessage(qualify(file.package, m.name), m);
    for (const e of file.enumType ?? []) addEnum(qualify(file.package, e.name), e);
    for (const svc of file.service ?? []) {
      const methods: Record<string, MethodFact> = {};
      for (const m of svc.method ?? []) {
        methods[m.name] = {
          request: resolveTypeName(m.inputType, file.package ?? '', known),
          response: resolveTypeName(m.outputType, file.package ?? '', known),
          requestStream: m.clientStreaming === true,
          responseStream: m.serverStreaming === true,
        };
      }
      out.services[qualify(file.package, svc.name)] = methods;
    }
  }
  return out;
}
