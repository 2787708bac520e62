"""Runs SQL statements with Spark (local mode) against a Hive metastore and writes each result row to a file.

Usage: spark_sql.py METASTORE_URI METASTORE_VERSION METASTORE_JARS WORK_DIR RESULT_FILE SQL [SQL ...]

METASTORE_JARS is Spark's spark.sql.hive.metastore.jars: "builtin" (Spark's own Hive 2.3.10 client) or "maven"
(Spark fetches the Hive client of METASTORE_VERSION from Maven Central once, into its Ivy cache ~/.ivy2.5.2).
Each row goes to RESULT_FILE (not stdout, which Spark's logging shares) as "ROW" and its values, tab-separated, NULL as \\N; a
statement's end as "END".
"""
import os
import sys

from pyspark.sql import SparkSession


def main(argv):
    uri, version, jars, work, result_file = argv[1:6]
    statements = argv[6:]
    session = (SparkSession.builder.master("local[1]").appName("hive-sink-reader")
               .config("spark.ui.enabled", "false")
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
                    out.write("ROW\t" + "\t".join("\\N" if v is None else str(v) for v in row) + "\n")
                out.write("END\n")
    finally:
        session.stop()


if __name__ == "__main__":
    main(sys.argv)
