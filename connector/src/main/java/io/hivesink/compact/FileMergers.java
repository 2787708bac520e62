package io.hivesink.compact;

import io.hivesink.config.OrcConfig;
import io.hivesink.config.ParquetConfig;
import io.hivesink.config.TableConfig;
import io.hivesink.config.TablesConfig;
import io.hivesink.orc.OrcMerge;
import io.hivesink.parquet.ParquetMerge;

/**
 * The merger of each table's format, set as the table's files are written: Parquet with the table's codec and
 * dictionary setting and the worker's row group and page sizes, ORC with the table's codec and the worker's stripe
 * size, Avro by copying blocks (which keeps each file's codec).
 */
public final class FileMergers {

    private final ParquetConfig parquet;
    private final OrcConfig orc;

    public FileMergers(ParquetConfig parquet, OrcConfig orc) {
        this.parquet = parquet;
        this.orc = orc;
    }

    public FileMerger forTable(TableConfig config) {
        return switch (config.format()) {
            case TablesConfig.FORMAT_PARQUET -> new ParquetFileMerger(new ParquetMerge(config.parquetCodec(),
                    config.parquetDictionary(), parquet.rowGroupBytes(), parquet.pageBytes()));
            case TablesConfig.FORMAT_ORC -> new OrcFileMerger(new OrcMerge(config.orcCodec(), orc.stripeBytes()));
            default -> new AvroFileMerger();
        };
    }
}
