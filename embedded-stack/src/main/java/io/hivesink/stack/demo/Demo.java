package io.hivesink.stack.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectRest;
import io.hivesink.stack.hive.HiveSql;

/**
 * The connector's real job on an embedded stack: records produced to Kafka, the connector deployed through the
 * Connect REST API, the data landed on HDFS and registered in the metastore, then queried with Hive.
 *
 * <pre>./demo [--keep-running] [--orders N] [--customers N]</pre>
 */
public final class Demo {

    private static final String ORDERS_TOPIC = "shop.orders-v1";
    private static final String CUSTOMERS_TOPIC = "customers";
    private static final String CONNECTOR = "hive-sink-demo";

    private Demo() {
    }

    public static void main(String[] args) {
        boolean keepRunning = false;
        int orders = 10_000;
        int customers = 1_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--keep-running" -> keepRunning = true;
                case "--orders" -> orders = Integer.parseInt(args[++i]);
                case "--customers" -> customers = Integer.parseInt(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("usage: ./demo [--keep-running] [--orders N] [--customers N]");
                    System.exit(0);
                }
                default -> {
                    System.err.println("unknown argument " + args[i] + "; try --help");
                    System.exit(2);
                }
            }
        }
        int status;
        try {
            status = run(keepRunning, orders, customers);
        } catch (Throwable e) {
            System.err.println();
            System.err.println("Demo failed: " + e);
            System.err.println("Logs: demo-work/embedded-stack.log and the child logs under demo-work/");
            status = 1;
        }
        // Kafka, Hadoop and Hive leave non-daemon threads behind
        System.exit(status);
    }

    private static int run(boolean keepRunning, int orders, int customers) throws Exception {
        Path workDir = Path.of(System.getProperty("hivesink.demo.dir", "demo-work")).toAbsolutePath();
        long start = System.nanoTime();
        step("Starting the embedded stack (KRaft broker, Connect worker, MiniDFSCluster, metastore, HiveServer2)");
        EmbeddedStack stack = EmbeddedStack.start(workDir);
        try {
            done(start);
            printEndpoints(stack);

            long t = System.nanoTime();
            step("Producing " + orders + " orders to '" + ORDERS_TOPIC + "' and " + customers + " customers to '"
                    + CUSTOMERS_TOPIC + "' (JSON with schemas)");
            stack.connect().kafka().createTopic(ORDERS_TOPIC, 3);
            stack.connect().kafka().createTopic(CUSTOMERS_TOPIC, 2);
            SampleData.produce(stack.producer(), ORDERS_TOPIC, SampleData.ORDER, 0, orders, SampleData::order);
            SampleData.produce(stack.producer(), CUSTOMERS_TOPIC, SampleData.CUSTOMER, 0, customers,
                    SampleData::customer);
            done(t);

            t = System.nanoTime();
            Map<String, String> config = connectorConfig(stack);
            step("Deploying the connector: PUT " + stack.connectRestUrl() + "connectors/" + CONNECTOR + "/config");
            System.out.println(indent(json(config)));
            new ConnectRest(stack.connectRestUrl()).putConnector(CONNECTOR, config);
            stack.awaitCommittedToEnd(CONNECTOR, Duration.ofMinutes(5), ORDERS_TOPIC, CUSTOMERS_TOPIC);
            done(t);

            t = System.nanoTime();
            step("Querying the landed tables with Hive (HiveServer2, MapReduce in local mode)");
            HiveSql hive = stack.hive();
            query(hive, "show tables in shop");
            query(hive, "show partitions shop.shop_orders_v1");
            query(hive, "select region, count(*) as orders, sum(qty) as items, cast(sum(amount) as string) as revenue "
                    + "from shop.shop_orders_v1 group by region order by region");
            query(hive, "select count(*) as customers, sum(if(vip, 1, 0)) as vips from shop.dim_customers");
            expectCount(hive, "shop.shop_orders_v1", orders);
            expectCount(hive, "shop.dim_customers", customers);
            query(hive, "select id, region, status, cast(amount as string) as amount, cast(ts as string) as ts, "
                    + "tags, address.street from shop.shop_orders_v1 where id < 3 order by id");
            query(hive, "select batch_id, task_id, sum(record_count) as records, count(distinct table_name) as "
                    + "tables, sum(file_count) as files from shop.hive_sink_ledger group by batch_id, task_id "
                    + "order by batch_id");
            done(t);
            System.out.printf("%nDemo finished in %.0f s: %d orders and %d customers landed in Hive.%n",
                    seconds(start), orders, customers);

            if (keepRunning) {
                System.out.println();
                System.out.println("The stack keeps running; press Ctrl-C to stop it.");
                printEndpoints(stack);
                CountDownLatch stopped = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    stack.close();
                    stopped.countDown();
                }));
                stopped.await();
            }
        } finally {
            if (!keepRunning) {
                stack.close();
            }
        }
        return 0;
    }

    private static Map<String, String> connectorConfig(EmbeddedStack stack) {
        Map<String, String> props = new TreeMap<>(stack.connectorConfig(CONNECTOR));
        props.remove("name");
        props.put("topics", ORDERS_TOPIC + "," + CUSTOMERS_TOPIC);
        props.put("tasks.max", "2");
        props.put("hive.database", "shop");
        props.put("hive.table.map", CUSTOMERS_TOPIC + ":dim_customers");
        props.put("partition.fields", "region");
        props.put("avro.codec", "snappy");
        return props;
    }

    private static String json(Map<String, String> props) {
        List<String> entries = new ArrayList<>();
        props.forEach((k, v) -> entries.add("  \"" + k + "\": \"" + v + "\""));
        return "{\n" + String.join(",\n", entries) + "\n}";
    }

    private static void query(HiveSql hive, String sql) {
        System.out.println();
        System.out.println("hive> " + sql + ";");
        List<List<String>> rows = hive.query(sql);
        for (List<String> row : rows) {
            System.out.println("  " + String.join("\t", row.stream().map(v -> v == null ? "NULL" : v).toList()));
        }
        System.out.println("  (" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    }

    /** The demo fails unless Hive counts exactly what was produced. */
    private static void expectCount(HiveSql hive, String table, int produced) {
        String counted = hive.query("select count(*) from " + table).get(0).get(0);
        if (!counted.equals(Integer.toString(produced))) {
            throw new IllegalStateException("Hive counts " + counted + " rows in " + table + ", but " + produced
                    + " records were produced");
        }
        System.out.println();
        System.out.println("  check: " + table + " holds exactly the " + produced + " records produced");
    }

    private static void printEndpoints(EmbeddedStack stack) {
        System.out.println("  Kafka bootstrap servers : " + stack.bootstrapServers());
        System.out.println("  Connect REST API        : " + stack.connectRestUrl());
        System.out.println("  HDFS                    : " + stack.hdfsUri());
        System.out.println("  Hive metastore          : " + stack.metastoreUri());
    }

    private static void step(String what) {
        System.out.println();
        System.out.println("==> " + what);
    }

    private static void done(long startNanos) {
        System.out.printf("    done in %.1f s%n", seconds(startNanos));
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static String indent(String text) {
        return "    " + text.replace("\n", "\n    ");
    }
}
