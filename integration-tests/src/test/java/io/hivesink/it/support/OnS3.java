package io.hivesink.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The class's FailoverStack ({@link StackExtension}) keeps its tables on S3: S3Proxy in a child JVM, the connector,
 * the metastore and HiveServer2 reaching it through S3A ({@code FailoverStack#startOnS3}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OnS3 {

    /**
     * The metastore (4.0.1) on its full schema, lock and transaction tables included: there, on Derby, it cannot
     * compare and set (see {@code Metastore40LocksIT}), and the connector fences by locks, as on Hive 3.1.
     */
    boolean lockTables() default false;
}
