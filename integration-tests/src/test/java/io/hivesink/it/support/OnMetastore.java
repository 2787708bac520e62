package io.hivesink.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.hivesink.stack.hive.MetastoreRelease;

/**
 * The metastore release of the class's FailoverStack ({@link StackExtension}), on its full schema (lock and
 * transaction tables included) and without HiveServer2; Hive 4.0.1 on DataNucleus's schema otherwise.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OnMetastore {
    public MetastoreRelease value();
}
