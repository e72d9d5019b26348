import { findProtoChanges, type ProtoChange } from '../src/index.js';

const HEADER = 'syntax = "proto3";\npackage shop;\n';
const V1 = `${HEADER}
service Orders {
  rpc Place(PlaceInput) returns (Order);
  rpc Cancel(CancelInput) returns (Order);
}
message PlaceInput {
  optional string phone = 1;
  int32 quantity = 2;
  Address address = 3;
  Kind kind = 4;
}
message CancelInput { string id = 1; }
message Order { string id = 1; repeated string lines = 2; }
message Address { string street = 1; string city = 2; }
enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; KIND_B = 2; }
`;

/** The changes from V1 to `text`, as `breaks: message` lines (`dangerous` or `safe` for what breaks nothing). */
const changes = (text: string, before = V1): string[] =>
  findProtoChanges(new Map([['shop.proto', before]]), new Map([['shop.proto', text]])).map(
    (change: ProtoChange) => `${change.breaks ?? (change.dangerous ? 'dangerous' : 'safe')}: ${change.message}`,
  );

describe('findProtoChanges', () => {
  it('finds nothing between a file and itself, or the same messages in another order', () => {
    expect(changes(V1)).toEqual([]);
    const reordered = V1.replace('message CancelInput { string id = 1; }\n', '').replace('enum Kind', 'message CancelInput { string id = 1; }\nenum Kind');
    expect(changes(reordered)).toEqual([]);
  });

  it('lists an added field, rpc, message and enum value as safe', () => {
    const added = V1.replace('repeated string lines = 2;', 'repeated string lines = 2; string note = 3;')
      .replace('rpc Cancel', 'rpc Track(CancelInput) returns (Order);\n  rpc Cancel')
      .replace('KIND_B = 2;', 'KIND_B = 2; KIND_C = 3;')
      .concat('message Unused { string x = 1; }\n');
    expect(changes(added)).toEqual([
      'safe: enum value KIND_C (3) was added to shop.Kind',
      'safe: field note (3) was added to shop.Order',
      'safe: rpc shop.Orders.Track was added',
      'safe: message shop.Unused was added',
    ]);
  });

  it('calls an enum value added dangerous where a response carries the enum: an old client reads a value it does not know', () => {
    const carried = V1.replace('repeated string lines = 2;', 'repeated string lines = 2; Kind kind = 3;');
    expect(changes(carried.replace('KIND_B = 2;', 'KIND_B = 2; KIND_C = 3;'), carried)).toEqual(['dangerous: enum value KIND_C (3) was added to shop.Kind, which responses carry']);
    // An enum no rpc reaches may be read anywhere.
    const unreached = V1.concat('enum Color { COLOR_UNSPECIFIED = 0; COLOR_RED = 1; }\n');
    expect(changes(unreached.replace('COLOR_RED = 1;', 'COLOR_RED = 1; COLOR_BLUE = 2;'), unreached)).toEqual(['dangerous: enum value COLOR_BLUE (2) was added to shop.Color']);
  });

  it('calls a field added to a oneof of a response dangerous: an old client finds none of the cases it knows set', () => {
    const oneof = V1.replace('repeated string lines = 2;', 'repeated string lines = 2; oneof paid { string card = 3; string cash = 4; }');
    expect(changes(oneof.replace('string cash = 4;', 'string cash = 4; string voucher = 5;'), oneof)).toEqual([
      'dangerous: field voucher (5) was added to oneof paid of shop.Order, which responses carry',
    ]);
    // In a request only, the server reads every case: safe.
    const input = V1.replace('Kind kind = 4;', 'Kind kind = 4; oneof contact { string email = 5; string sms = 6; }');
    expect(changes(input.replace('string sms = 6;', 'string sms = 6; string post = 7;'), input)).toEqual(['safe: field post (7) was added to shop.PlaceInput']);
  });

  it('says a removed field breaks the wire when its number is not reserved, JSON when its name is not, the API otherwise', () => {
    expect(changes(V1.replace('int32 quantity = 2;', ''))).toEqual([
      'wire: field quantity (2) of shop.PlaceInput was removed without reserving its number: another field can take it',
    ]);
    expect(changes(V1.replace('int32 quantity = 2;', 'reserved 2;'))).toEqual(['json: field quantity (2) of shop.PlaceInput was removed without reserving its name']);
    expect(changes(V1.replace('int32 quantity = 2;', 'reserved 2; reserved "quantity";'))).toEqual(['api: field quantity (2) of shop.PlaceInput was removed']);
  });

  it('says a number given to a field of another wire type breaks the wire, and a reserved number reused too', () => {
    expect(changes(V1.replace('int32 quantity = 2;', 'double quantity = 2;'))).toEqual([
      'wire: field 2 of shop.PlaceInput (quantity) changed type from int32 to double',
    ]);
    expect(changes(V1.replace('int32 quantity = 2;', 'int64 quantity = 2;'))).toEqual(['json: field 2 of shop.PlaceInput (quantity) changed type from int32 to int64']);
    const reserved = V1.replace('int32 quantity = 2;', 'reserved 2; reserved "quantity";');
    expect(changes(reserved.replace('reserved 2;', 'string note = 2;'), reserved)).toEqual([
      "wire: field note of shop.PlaceInput takes the reserved number 2: old clients' bytes for the removed field decode into it",
      'wire: reserved number 2 of shop.PlaceInput is no longer reserved',
    ]);
  });

  it('says a type change under a new number leaves the JSON name meaning another type', () => {
    expect(changes(V1.replace('int32 quantity = 2;', 'double quantity = 5; reserved 2;'))).toEqual([
      'json: field quantity of shop.PlaceInput changed from int32 (2) to double (5): in JSON the name now means the new field',
      'safe: field quantity (5) was added to shop.PlaceInput',
    ]);
  });

  it('says a renamed field breaks JSON, a changed presence the API, a changed cardinality or oneof the wire', () => {
    expect(changes(V1.replace('string street = 1;', 'string road = 1;'))).toEqual(['json: field 1 of shop.Address was renamed from street to road']);
    expect(changes(V1.replace('optional string phone = 1;', 'string phone = 1;'))).toEqual(['api: field 1 of shop.PlaceInput (phone) lost explicit presence (optional)']);
    expect(changes(V1.replace('repeated string lines = 2;', 'string lines = 2;'))).toEqual(['wire: field 2 of shop.Order (lines) changed from repeated to singular']);
    expect(changes(V1.replace('string street = 1; string city = 2;', 'oneof place { string street = 1; string city = 2; }'))).toEqual([
      'wire: field 1 of shop.Address (street) moved from no oneof to oneof place',
      'wire: field 2 of shop.Address (city) moved from no oneof to oneof place',
      'api: field 1 of shop.Address (street) gained explicit presence (optional)',
      'api: field 2 of shop.Address (city) gained explicit presence (optional)',
    ]);
  });

  it('follows a renamed message from the rpc that reaches it and reports the rename alone when its fields are the same', () => {
    const renamed = V1.replace('Address address = 3;', 'PostalAddress address = 3;').replace('message Address', 'message PostalAddress');
    expect(changes(renamed)).toEqual([
      'api: message shop.Address was renamed shop.PostalAddress (shop.PlaceInput.address): the bytes are read the same, generated code changes',
    ]);
    // The renamed message numbered from scratch: its numbers now mean other fields.
    const renumbered = renamed.replace('string street = 1; string city = 2;', 'string city = 1; string street = 2;');
    expect(changes(renumbered)).toEqual([
      'json: field 1 of shop.PostalAddress was renamed from street to city',
      'json: field 2 of shop.PostalAddress was renamed from city to street',
      'api: message shop.Address was renamed shop.PostalAddress (shop.PlaceInput.address): the bytes are read the same, generated code changes',
    ]);
  });

  it('reports removed enum values and rpcs, and a removed file', () => {
    expect(changes(V1.replace('KIND_B = 2;', 'reserved 2; reserved "KIND_B";'))).toEqual(['api: enum value KIND_B (2) of shop.Kind was removed']);
    expect(changes(V1.replace('KIND_B = 2;', ''))).toEqual(['wire: enum value KIND_B (2) of shop.Kind was removed without reserving its number']);
    expect(changes(V1.replace('  rpc Cancel(CancelInput) returns (Order);\n', ''))).toEqual(['api: rpc shop.Orders.Cancel was removed']);
    const gone = findProtoChanges(new Map([['shop.proto', V1]]), new Map([['other.proto', 'syntax = "proto3";\npackage other;\n']]));
    expect(gone.filter((change) => change.breaks !== undefined).map((change) => change.message)).toEqual(
      expect.arrayContaining(['file shop.proto was removed', 'rpc shop.Orders.Place was removed', 'message shop.Address was removed', 'enum shop.Kind was removed']),
    );
  });

  it('names the side and file it cannot read', () => {
    expect(() => findProtoChanges(new Map([['shop.proto', 'syntax = "proto3";\nmessage {']]), new Map())).toThrow(/^Could not read the previous shop\.proto: /);
  });
});
