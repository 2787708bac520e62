package io.hivesink.avro.datum;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Compiles a writer schema into the programs a {@link DatumScanner} runs: one per record type, one per array item, map
 * value and union branch type, linked by index so that recursive schemas compile to a finite set.
 */
final class ScanCompiler {
    private final List<ScanProgram> programs = new ArrayList<>();
    private final List<ScanProgram[]> unions = new ArrayList<>();
    private final List<DecimalType> decimals = new ArrayList<>();
    private final List<InstantType> instants = new ArrayList<>();
    private final IdentityHashMap<Schema, Integer> records = new IdentityHashMap<>();
    /** The field being compiled, for the messages of decimals. */
    private String field = "";

    private ScanCompiler() {
    }

    /** The program of the top-level record of {@code writer}, linked to every program it runs. */
    static ScanProgram compile(Schema writer) {
        ScanCompiler compiler = new ScanCompiler();
        int root = compiler.record(writer);
        ScanProgram[] programs = compiler.programs.toArray(new ScanProgram[0]);
        ScanProgram[][] unions = compiler.unions.toArray(new ScanProgram[0][]);
        DecimalType[] decimals = compiler.decimals.toArray(new DecimalType[0]);
        InstantType[] instants = compiler.instants.toArray(new InstantType[0]);
        for (ScanProgram program : programs) {
            program.programs = programs;
            program.unions = unions;
            program.decimals = decimals;
            program.instants = instants;
        }
        return programs[root];
    }

    int record(Schema schema) {
        Integer known = records.get(schema);
        if (known != null) {
            return known;
        }
        ScanProgram program = new ScanProgram();
        int index = add(program);
        records.put(schema, index); // before the fields, so that a recursive reference finds it
        List<Schema.Field> fields = schema.getFields();
        int[] ops = new int[2 * fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            String outer = field;
            field = outer.isEmpty() ? fields.get(i).name() : outer + "." + fields.get(i).name();
            op(fields.get(i).schema(), ops, 2 * i);
            field = outer;
        }
        program.ops = ops;
        return index;
    }

    /** A program of the one value {@code schema}. */
    int single(Schema schema) {
        ScanProgram program = new ScanProgram();
        int[] ops = new int[2];
        op(schema, ops, 0);
        program.ops = ops;
        return add(program);
    }

    int add(ScanProgram program) {
        programs.add(program);
        return programs.size() - 1;
    }

    void op(Schema schema, int[] ops, int at) {
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal
                && (schema.getType() == Schema.Type.BYTES || schema.getType() == Schema.Type.FIXED)) {
            decimals.add(new DecimalType(field, decimal.getPrecision(), decimal.getScale(),
                    schema.getType() == Schema.Type.FIXED ? schema.getFixedSize() : -1));
            ops[at] = ScanProgram.DECIMAL;
            ops[at + 1] = decimals.size() - 1;
            return;
        }
        InstantType instant = InstantType.of(field, logical);
        if (instant != null) {
            instants.add(instant);
            ops[at] = ScanProgram.INSTANT;
            ops[at + 1] = instants.size() - 1;
            return;
        }
        int argument = 0;
        int op = switch (schema.getType()) {
            case NULL -> ScanProgram.NOTHING;
            case BOOLEAN -> ScanProgram.BOOLEAN;
            case INT, LONG -> ScanProgram.NUMBER;
            case FLOAT -> {
                argument = 4;
                yield ScanProgram.FIXED;
            }
            case DOUBLE -> {
                argument = 8;
                yield ScanProgram.FIXED;
            }
            case FIXED -> {
                argument = schema.getFixedSize();
                yield ScanProgram.FIXED;
            }
            case STRING, BYTES -> ScanProgram.LENGTH;
            case ENUM -> {
                argument = schema.getEnumSymbols().size();
                yield ScanProgram.ENUM;
            }
            case RECORD -> {
                argument = record(schema);
                yield ScanProgram.RECORD;
            }
            case ARRAY -> {
                argument = single(schema.getElementType());
                yield ScanProgram.ARRAY;
            }
            case MAP -> {
                argument = single(schema.getValueType());
                yield ScanProgram.MAP;
            }
            case UNION -> {
                List<Schema> types = schema.getTypes();
                ScanProgram[] branches = new ScanProgram[types.size()];
                unions.add(branches);
                argument = unions.size() - 1;
                for (int i = 0; i < branches.length; i++) {
                    branches[i] = programs.get(single(types.get(i)));
                }
                yield ScanProgram.UNION;
            }
        };
        ops[at] = op;
        ops[at + 1] = argument;
    }
}
