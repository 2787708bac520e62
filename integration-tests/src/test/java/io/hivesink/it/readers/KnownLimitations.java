package io.hivesink.it.readers;

import java.util.List;

/**
 * Every way a reader is known to answer wrong from the matrix's correct files, with the upstream issue and what a
 * user sets or avoids; docs/compatibility.md says the same to users. Each names the checks and the wrong answers it
 * explains, no more.
 */
final class KnownLimitations {

    private static final String CBO_NOT_NULL = "Hive 3.1's cost-based optimizer takes every array, map and struct "
            + "for NOT NULL (HIVE-21778, fixed in 4.0): IS NULL of one is false, IS NOT NULL true and count() counts "
            + "its NULLs, in every format. Set hive.cbo.enable=false for such queries, or upgrade to Hive 4";

    /** The ids of the rows whose timestamp is 1969-12-31 23:59:59.999, which ORC cannot hold. */
    private static final String LAST_MILLI_BEFORE_EPOCH = "(2|8|14|20|26|32)";

    static final List<Limitation> ALL = List.of(
            new Limitation("", "orc", "scan/ts/id=" + LAST_MILLI_BEFORE_EPOCH,
                    "expected 1969-12-31 23:59:59.999, read 1970-01-01 00:00:00.999",
                    "ORC-645: ORC's encoding cannot hold a timestamp between one second before the epoch and the "
                            + "epoch; every ORC reader reads it one second late. Use Avro or Parquet for such values"),
            new Limitation("", "orc", "ts [<>] 1970-01-01 00:00:00", ".*", "ORC-645, as above"),
            new Limitation("spark", "avro", "scan/(day|ts)/id=\\d+",
                    "expected (1000-01-01|1582-10-04|1500-06-15 10:00:00), read .*",
                    "Spark reads Avro tables through its built-in Hive 2.3 AvroSerDe, which takes dates and "
                            + "timestamps before 1582-10-15 in the hybrid Julian calendar (SPARK-31404; Hive fixed "
                            + "its SerDe in HIVE-22589, 3.1.3): they read 10 days (or more) early. Read such values "
                            + "from Parquet or ORC tables, or the files with Spark's own Avro source"),
            new Limitation("spark", "avro", "(day|ts) (=|<>|<|>) (1000-01-01|1500-06-15 10:00:00)", ".*",
                    "SPARK-31404, as above"),
            new Limitation("spark", "*", "day (=|<>|<|>) 1582-10-10", ".*",
                    "Spark pushes a date filter down as a java.sql.Date (SPARK-31488), whose hybrid calendar has "
                            + "no 1582-10-05 to 1582-10-14: a literal in those ten days is moved to 1582-10-15 "
                            + "(SPARK-31455) and files are skipped by it. Avoid such literals, or set "
                            + "spark.sql.parquet.filterPushdown / spark.sql.orc.filterPushdown to false"),
            new Limitation("hive-4.0.1", "parquet", "scan/ts/id=\\d+",
                    "expected 1500-06-15 10:00:00, read 1500-06-05 10:00:00",
                    "Hive 4.0.1 turns an INT96 timestamp's Julian day number into a date of the Julian calendar "
                            + "and takes that date as Gregorian (NanoTimeUtils; see HIVE-28249 on its legacy "
                            + "conversion), so a timestamp before 1582-10-15 reads 10 days (or more) early; Spark "
                            + "and Trino (and Hive 3.1.3) count the days as the connector writes them. Land such "
                            + "values in Avro or ORC tables"),
            new Limitation("hive-4.0.1", "parquet", "ts (=|<>|<|>) 1500-06-15 10:00:00", ".*",
                    "Hive 4.0.1's INT96 days, as above"),
            new Limitation("hive-3.1.3", "*", "(arr|m|rec|rec\\.Deep|items) is (not )?null", ".*", CBO_NOT_NULL),
            new Limitation("hive-3.1.3", "*", "count\\((arr|m|rec|items)\\)", ".*", CBO_NOT_NULL),
            new Limitation("hive-3.1.3", "*", "scan/(arr|m|rec|rec\\.Deep|items) is null/id=\\d+",
                    "expected true, read false", CBO_NOT_NULL),
            new Limitation("hive-3.1.3", "*", "scan/size\\((arr|m|items)\\)/id=\\d+", "expected null, read -1",
                    CBO_NOT_NULL),
            new Limitation("hive-3.1.3", "*", "scan/dec38/id=\\d+", "expected -?9{32}\\.9{6}, read null",
                    "Hive 3.1.3 reads a decimal(38,6) value of all 38 digits as NULL, from every format (Hive 4.0.1, "
                            + "Spark and Trino read it; no upstream issue found). Keep such values a digit short of "
                            + "the type's precision, or read them with another engine"),
            new Limitation("hive-3.1.3", "orc", "f(32|64) (=|<>|<|>) .*", ".*",
                    "With hive.optimize.index.filter=true (not 3.1's default), Hive 3.1.3's ORC 1.5 skips stripes "
                            + "that hold matching rows when a float or double column holds NaN or an infinity: it "
                            + "predates ORC-629, which taught readers the writer keeps NaN out of min and max. Keep "
                            + "hive.optimize.index.filter=false (3.1's default) on such tables"),
            new Limitation("hive-3.1.3", "orc", "s (=|<>|<|>) .* \\(and the rest of its statement\\)",
                    ".*NullPointerException.*",
                    "With hive.optimize.index.filter=true (not 3.1's default), Hive 3.1.3's ORC 1.5 fails a query "
                            + "with a predicate on a string column whose stripe holds a string over 1,024 bytes: "
                            + "ORC 1.6 and later keep only truncated bounds for it (ORC-203), which ORC 1.5 reads "
                            + "as a missing minimum (NullPointerException in split generation). Keep "
                            + "hive.optimize.index.filter=false (3.1's default)"),
            new Limitation("hive-3.1.3", "avro", "ledger/complete batches of .*", ".*MapredLocalTask.*",
                    "Hive 3.1.3 fails the README's complete-batches join (map join local task: cannot find field "
                            + "input__file__name) when it builds its hash table from the data table, as it does "
                            + "for a table smaller than the ledger's rows; Hive 4.0.1 runs it. No upstream issue "
                            + "found; hive.auto.convert.join=false avoids the map join (Compaction31IT runs it so)"),
            new Limitation("hive", "orc", "day (=|<>|<|>) 1582-10-10", ".*",
                    "Hive pushes a date literal down to ORC through java.sql.Date, whose hybrid calendar has no "
                            + "1582-10-05 to 1582-10-14 (the cause of SPARK-31488 in Spark): a literal in those ten "
                            + "days moves and stripes are skipped by it. Avoid such literals, or keep "
                            + "hive.optimize.index.filter=false"),
            new Limitation("spark", "orc", "rec\\..* is null", ".*",
                    "Spark pushes IS NULL of a nested field down to ORC, whose statistics of the field count only "
                            + "rows whose struct is not null: a stripe where the struct is null but the field never "
                            + "is gets skipped. Test the struct as well (rec is null or rec.f is null), or set "
                            + "spark.sql.optimizer.nestedPredicatePushdownSupportedFileSources without orc"),
            new Limitation("trino", "avro", "(ledger/)?read", ".*Storage schema reading not supported.*",
                    "Trino asks a standalone metastore for an Avro table's fields, which it serves only with "
                            + "metastore.storage.schema.reader.impl=SerDeStorageSchemaReader and Hive's SerDe jars; "
                            + "the task warns of it at start (AvroFieldsCheck)"));

    private KnownLimitations() {
    }
}
