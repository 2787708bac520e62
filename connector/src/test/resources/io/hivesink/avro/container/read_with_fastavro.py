"""Reads Avro container files with fastavro and prints, per file, one JSON line describing it
({"file", "codec", "count"}) and then one JSON line per record, in file order. bytes and fixed values
are printed as lowercase hex, so the output is plain JSON that FastavroInteropTest compares."""

import json
import sys

from fastavro import reader


def plain(value):
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def main(paths):
    for path in paths:
        with open(path, "rb") as file:
            avro = reader(file)
            records = [plain(record) for record in avro]
            print(json.dumps({"file": path, "codec": avro.codec, "count": len(records)}))
            for record in records:
                print(json.dumps(record, allow_nan=False))


if __name__ == "__main__":
    main(sys.argv[1:])
