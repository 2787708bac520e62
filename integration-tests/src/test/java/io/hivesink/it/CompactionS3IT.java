package io.hivesink.it;

import io.hivesink.it.support.OnS3;

/**
 * {@link CompactionIT} with the tables on S3 (S3Proxy), on metastore 4.0.1 fencing by compare-and-set: the merged
 * files are objects written whole under a new prefix, the swap is the metastore's alone (no rename of a prefix), the
 * old prefix's objects are deleted at retirement, and a worker halted at each step leaves no object a reader takes.
 * Read by HiveServer2 4.0.1 and Spark over {@code s3a://}.
 */
@OnS3
class CompactionS3IT extends CompactionIT {
}
