"""Runs SQL statements with Spark (local mode) against a Hive metastore and writes each result row to a file.

Usage: spark_sql.py METASTORE_URI METASTORE_VERSION METASTORE_JARS WORK_DIR RESULT_FILE SETTINGS_FILE SQL [SQL ...]

METASTORE_JARS is Spark's spark.sql.hive.metastore.jars: "builtin" (Spark's own Hive 2.3.10 client) or "maven"
(Spark fetches the Hive client of METASTORE_VERSION from Maven Central once, into its Ivy cache ~/.ivy2.5.2).
Each row goes to RESULT_FILE (not stdout, which Spark's logging shares) as "ROW" and its values, tab-separated, rendered
as Hive's JDBC driver renders them (see text()); a statement's end as "END". SETTINGS_FILE holds further Spark
settings, one "key=value" per line (S3A's, say).
"""
import os
import sys

from pyspark.sql import SparkSession


def text(value):
    """A value as Hive's JDBC driver renders it: NULL as \\N, booleans in lower case (Python writes True)."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def main(argv):
    uri, version, jars, work, result_file, settings_file = argv[1:7]
    statements = argv[7:]
    builder = SparkSession.builder
    with open(settings_file, encoding="utf-8") as settings:
        for line in settings:
            key, _, value = line.rstrip("\n").partition("=")
            if key:
                builder = builder.config(key, value)
    session = (builder.master("local[2]").appName("hive-sink-reader")
               .config("spark.ui.enabled", "false")
               # a few thousand rows at most: 200 shuffle partitions would be 200 tasks per join or aggregation
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", os.path.join(work, "spark-warehouse"))
               .config("spark.hadoop.hive.metastore.uris", uri)
               .config("spark.sql.hive.metastore.version", version)
               .config("spark.sql.hive.metastore.jars", jars)
               .enableHiveSupport().getOrCreate())
    try:
        with open(result_file, "w", encoding="utf-8") as out:
            for statement in statements:
                for row in session.sql(statement).collect():
                    out.write("ROW\t" + "\t".join(text(v) for v in row) + "\n")
                out.write("END\n")
    finally:
        session.stop()


if __name__ == "__main__":
    main(sys.argv)
