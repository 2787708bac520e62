package io.hivesink.bench.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.bench.BenchData;

/**
 * The Struct path of the end-to-end benchmark, for both sinks: turns Confluent-framed Avro (magic byte, schema id,
 * datum) into Connect {@code Struct}s the way Confluent's {@code AvroConverter} does (the writer schema fetched once
 * per id from the registry's {@code GET /schemas/ids/{id}}, each datum decoded by Avro's {@code GenericDatumReader},
 * then copied field by field into a {@code Struct}). Confluent's converter is not on Maven Central; this one reads the
 * benchmark schemas' types (records of int, long, double, string and their nullable unions, mapped by
 * {@link BenchData#connectSchema} as the records were made), so that neither sink is measured on a converter the other
 * does not pay for.
 */
public final class FramedAvroConverter implements Converter {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newHttpClient();
    private final Map<Integer, Reader> readers = new HashMap<>();
    private String registryUrl;
    private BinaryDecoder decoder;

    /** One writer schema's decoder and the Connect schema its records become. */
    private record Reader(GenericDatumReader<GenericRecord> datums, Schema connect) {
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Object url = configs.get("schema.registry.url");
        if (url == null) {
            throw new DataException("FramedAvroConverter needs schema.registry.url");
        }
        registryUrl = url.toString().replaceAll("/+$", "");
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        throw new UnsupportedOperationException("the benchmark's converter only reads");
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) {
            return SchemaAndValue.NULL;
        }
        ByteBuffer frame = ByteBuffer.wrap(value);
        if (value.length < 5 || frame.get() != 0) {
            throw new DataException("not a Confluent-framed record on " + topic);
        }
        Reader reader = readers.computeIfAbsent(frame.getInt(), this::fetch);
        decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
        try {
            GenericRecord record = reader.datums().read(null, decoder);
            return new SchemaAndValue(reader.connect(), toStruct(record, reader.connect()));
        } catch (IOException e) {
            throw new DataException("cannot decode a record of " + topic, e);
        }
    }

    private Reader fetch(int id) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(registryUrl + "/schemas/ids/" + id)).GET().build();
        try {
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                if (response.statusCode() != 200) {
                    throw new DataException("schema " + id + ": registry answered " + response.statusCode());
                }
                org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser()
                        .parse(JSON.readTree(body).get("schema").asText());
                return new Reader(new GenericDatumReader<>(avro), connectSchema(avro, id));
            }
        } catch (IOException e) {
            throw new DataException("cannot fetch schema " + id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DataException("interrupted fetching schema " + id, e);
        }
    }

    /** The Connect schema the benchmark gives these records, as the one its records were made from. */
    private static Schema connectSchema(org.apache.avro.Schema avro, int id) {
        try {
            return BenchData.connectSchema(avro);
        } catch (IllegalArgumentException e) {
            throw new DataException("the benchmark converter cannot read schema " + id + ": " + e.getMessage(), e);
        }
    }

    private static Struct toStruct(GenericRecord record, Schema schema) {
        Struct struct = new Struct(schema);
        List<Field> fields = schema.fields();
        for (int i = 0; i < fields.size(); i++) {
            Object value = record.get(i);
            if (value instanceof CharSequence text) {
                value = text.toString();
            }
            struct.put(fields.get(i), value);
        }
        return struct;
    }
}
