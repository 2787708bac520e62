"""Reads Parquet and ORC files with pyarrow and prints, per file, a header line, then each row as canonical JSON.

Canonical: bytes as hex, decimals as plain strings, dates as days since 1970-01-01, timestamps as milliseconds since
the epoch (INT96 read at millisecond unit), maps as objects with sorted keys. The header names the file, its codec,
its row count and its row groups (Parquet) or stripes (ORC), as pyarrow's metadata gives them.
"""
import datetime
import decimal
import json
import sys

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

EPOCH_DAY = datetime.date(1970, 1, 1).toordinal()


def canonical(value, arrow_type):
    if value is None:
        return None
    if pa.types.is_struct(arrow_type):
        return {arrow_type.field(i).name: canonical(value[arrow_type.field(i).name], arrow_type.field(i).type)
                for i in range(arrow_type.num_fields)}
    if pa.types.is_map(arrow_type):
        return {k: canonical(v, arrow_type.item_type) for k, v in sorted(value)}
    if pa.types.is_list(arrow_type):
        return [canonical(v, arrow_type.value_type) for v in value]
    if pa.types.is_binary(arrow_type) or pa.types.is_fixed_size_binary(arrow_type):
        return value.hex()
    if pa.types.is_decimal(arrow_type):
        return format(value, "f")
    if pa.types.is_date32(arrow_type):
        return value.toordinal() - EPOCH_DAY
    if pa.types.is_timestamp(arrow_type):
        return value  # cast to int64 milliseconds before to_pylist
    return value


def read(path):
    """The file's table, codec and row groups or stripes."""
    if path.endswith(".orc"):
        orc_file = orc.ORCFile(path)
        return orc_file.read(), orc_file.compression, orc_file.nstripes
    parquet = pq.ParquetFile(path)
    codec = parquet.metadata.row_group(0).column(0).compression if parquet.metadata.num_row_groups else "none"
    return pq.read_table(path, coerce_int96_timestamp_unit="ms"), codec, parquet.metadata.num_row_groups


def main(paths):
    for path in paths:
        table, codec, groups = read(path)
        columns = []
        for name, column in zip(table.column_names, table.columns):
            if pa.types.is_timestamp(column.type):
                column = column.cast(pa.timestamp("ms")).cast(pa.int64())
            columns.append((name, column.type, column.to_pylist()))
        print(json.dumps({"file": path, "codec": codec, "rows": table.num_rows, "row_groups": groups}))
        for row in range(table.num_rows):
            print(json.dumps({name: canonical(values[row], arrow_type) for name, arrow_type, values in columns},
                             ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
