package io.hivesink.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.hivesink.stack.hive.MetastoreRelease;

/**
 * The class's FailoverStack ({@link StackExtension}) keeps its tables on S3: S3Proxy in a child JVM, the connector,
 * the metastore (and HiveServer2, on 4.0) reaching it through S3A ({@code FailoverStack#startOnS3}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OnS3 {

    /**
     * The metastore release. HiveServer2 runs only with 4.0 (HiveServer2 4 cannot talk to an older metastore); on 3.1,
     * which fences by locks, read the tables through Spark ({@code SparkSql#onS3}).
     */
    MetastoreRelease value() default MetastoreRelease.HIVE_4_0;
}
