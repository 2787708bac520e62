package io.hivesink.task;

import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;

/** How a task gets its metastore: over Thrift in a worker, an in-memory fake in the task's unit test. */
@FunctionalInterface
public interface MetastoreFactory {

    MetastoreFactory THRIFT = ThriftMetastore::connect;

    Metastore connect(MetastoreSettings settings);
}
