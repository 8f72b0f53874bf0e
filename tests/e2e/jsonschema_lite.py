"""A validator for the subset of JSON Schema (draft 2020-12) that
docs/schema/*.schema.json use: type (one or a list), const, enum, pattern,
properties, required, additionalProperties, items, minItems, anyOf.

The Python `jsonschema` package validates the same documents where it is
installed (tests/e2e/test_json_schemas.py uses both); this one keeps the
test running on a machine with nothing but python3.  A keyword it does not
know is an error, so a schema cannot silently ask for more than is checked.
"""
import re

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum", "pattern",
         "properties", "required", "additionalProperties", "items", "minItems", "anyOf"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def errors(schema, value, path="$"):
    """Every violation of schema by value, as 'path: what' strings."""
    out = []
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: schema uses unsupported keywords {sorted(unknown)}"]
    if "type" in schema:
        ts = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in ts):
            return [f"{path}: {type(value).__name__} is not {'/'.join(ts)}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if "anyOf" in schema:
        alts = [errors(s, value, path) for s in schema["anyOf"]]
        if all(alts):
            out.append(f"{path}: matches none of anyOf: " + " | ".join(a[0] for a in alts))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                out.append(f"{path}: required key {k!r} missing")
        for k, v in value.items():
            if k in props:
                out += errors(props[k], v, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: key {k!r} is not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(schema["additionalProperties"], v, f"{path}.{k}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(schema["items"], v, f"{path}[{i}]")
    return out
