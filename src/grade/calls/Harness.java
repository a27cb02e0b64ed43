/*
 * ttt-referee's harness for `grade --api igameboard`: calls the methods of a
 * student's IGameBoard classes (Clemson CPSC 2150, CPSC 2150 Extended Tic Tac Toe).
 *
 * Usage: java <jvm flags> -cp HARNESS_CLASSES:STUDENT_CLASSES ttt.harness.Harness
 *            LIMIT_MS BUDGET_MS GAMEBOARD GAMEBOARDMEM BOARDPOSITION < calls
 *
 * The three class names are fully qualified (`cpsc2150.extendedTicTacToe.GameBoard`),
 * or `-` for a class the submission lacks. Standard input holds every call, one
 * JSON object per line:
 *
 *   {"id": 7, "class": "GameBoardMem", "rows": 4, "cols": 5, "win": 3,
 *    "moves": [[0, 0, "X"], [2, 1, "O"]], "call": "checkDiagonalWin", "args": [[1, 1], "X"]}
 *
 * Each is answered on its own line of standard output, in order: `ok` (the
 * value, and `before` and `after`, the board read back with the student's own
 * whatsAtPos before and after the call),
 * `raised`, `setup_raised`, `missing` or `timeout`, after a first line
 * `{"loaded": true}`. Once BUDGET_MS have gone by it starts no more calls and
 * ends with `{"paused": true}`: the grader starts it again for the rest. The
 * harness reports what happened and never decides pass or fail: the grader
 * does (and as the student's code runs in the same JVM, a student who sets out
 * to forge answers can; the grader notices a call answered twice).
 *
 * It reads every call before any student code runs, and the student's prints
 * and reads go to empty streams. The calls run in turn on a daemon worker
 * thread; a call still running after LIMIT_MS (set-up and read-back included)
 * is answered `timeout` and the harness exits at once with status 3 (the grader
 * restarts it with the calls left). Exit status 2 means the harness itself was
 * misused (bad arguments or a malformed call), 4 that it could not start its
 * worker thread (the call is not answered and not to blame), 1 that standard
 * output was closed.
 *
 * Under an address-space limit (ulimit -v) the JVM needs MALLOC_ARENA_MAX=1 in
 * its environment: glibc reserves 64 MiB of address space for each malloc arena,
 * up to 8 per core, and a JVM has a dozen threads. And -Xlog:disable
 * -Xlog:all=warning:stderr keeps the JVM's own warnings off the protocol.
 *
 * Reflection only, java.base only, Java 11 or later. It is in a package of its
 * own and compiled alone, never with the student's files or classes on its
 * source or class path: in the unnamed package, or compiled beside a
 * submission, a student's `StringBuilder`, `Integer` or `Thread` of the
 * unnamed package would be compiled in as the one this file means.
 *
 *   javac -proc:none -implicit:none -cp HARNESS_CLASSES -sourcepath SRC -d HARNESS_CLASSES SRC/ttt/harness/Harness.java
 *
 * Its classes come first on the run's class path (java.* classes are the JDK's
 * alone), and every class of its own is loaded before any student code runs,
 * so a class file the student's code writes at run time cannot be loaded as one
 * of the harness's either.
 */

package ttt.harness;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

public final class Harness {
    /** Exception messages and other text reported about them are cut at this many characters. */
    private static final int MAX_MESSAGE = 2000;

    /**
     * The protocol's stream: the real standard output, opened as the harness
     * loads, before any student class does (final: reflection cannot swap it).
     */
    private static final PrintStream PROTOCOL =
            new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)), false, StandardCharsets.US_ASCII);

    /** A string value longer than this is reported by its length, not in full. */
    private static final int MAX_STRING = 100_000;

    /** The fully qualified name of each class the calls name ("GameBoard" -> "pkg.GameBoard"), or "-". */
    private static final Map<String, String> classNames = new HashMap<>();

    private Harness() {}

    public static void main(String[] argv) throws Exception {
        PrintStream stderr = new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8");
        long began = System.nanoTime();
        if (argv.length != 5) {
            stderr.println("usage: java ttt.harness.Harness LIMIT_MS BUDGET_MS GAMEBOARD GAMEBOARDMEM BOARDPOSITION < calls");
            Runtime.getRuntime().halt(2);
        }
        // Every class of the harness's own is loaded now, from its own
        // directory, before any student code runs and could write one there.
        for (Class<?> own : Harness.class.getDeclaredClasses()) {
            Class.forName(own.getName(), true, Harness.class.getClassLoader());
        }
        long limit = milliseconds(argv[0], stderr);
        long budget = milliseconds(argv[1], stderr);
        classNames.put("GameBoard", argv[2]);
        classNames.put("GameBoardMem", argv[3]);
        classNames.put("BoardPosition", argv[4]);

        // Every call is read and checked before any student code runs.
        String input = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        List<Call> calls = new ArrayList<>();
        String[] lines = input.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].trim().isEmpty()) {
                continue;
            }
            try {
                calls.add(Call.of(new Json(lines[i]).document()));
            } catch (IllegalArgumentException e) {
                stderr.println("Harness: line " + (i + 1) + " of the calls: " + e.getMessage());
                Runtime.getRuntime().halt(2);
            }
        }

        // The protocol keeps the real standard output; the student gets empty streams.
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), false, "UTF-8");
        System.setOut(nowhere);
        System.setErr(nowhere);
        System.setIn(InputStream.nullInputStream());

        // One daemon thread runs the calls in turn: a call that overruns ends the
        // harness, so a stuck worker never needs replacing (and starting a thread
        // per call would cost more than most calls).
        ExecutorService worker = Executors.newSingleThreadExecutor(job -> {
            Thread thread = new Thread(job, "student");
            thread.setDaemon(true);
            return thread;
        });
        send("{\"loaded\": true}");
        for (Call call : calls) {
            // Past the budget, the grader starts the harness again for the
            // calls left, before the sandbox's own limit stops it unheard.
            if (System.nanoTime() - began > budget * 1_000_000) {
                send("{\"paused\": true}");
                Runtime.getRuntime().halt(0);
            }
            Future<String> task;
            try {
                task = worker.submit(() -> {
                    Thread.interrupted(); // a flag the last call left set is not this call's
                    return answer(call);
                });
            } catch (OutOfMemoryError e) {
                // No thread to be had (the memory limit, or threads the student left running):
                // the call is not answered and is not to blame.
                stderr.println("Harness: cannot start a thread for call " + call.id + ": " + describe(e));
                Runtime.getRuntime().halt(4);
                return;
            }
            String line;
            try {
                line = task.get(limit, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                send("{\"id\": " + call.id + ", \"timeout\": true}");
                Runtime.getRuntime().halt(3);
                return;
            } catch (ExecutionException e) {
                // answer() catches everything the student's code throws; this is
                // what escaped while writing the answer (say, out of memory).
                line = "{\"id\": " + call.id + ", \"raised\": " + quote(describe(e.getCause())) + "}";
            }
            send(line);
        }
        // halt, not exit: the student's threads and shutdown hooks cannot hold the harness.
        Runtime.getRuntime().halt(0);
    }

    /** A positive number of milliseconds from the command line, or the harness ends (status 2). */
    private static long milliseconds(String text, PrintStream stderr) {
        long ms;
        try {
            ms = Long.parseLong(text);
        } catch (NumberFormatException e) {
            ms = -1;
        }
        if (ms <= 0) {
            stderr.println("Harness: a time must be a positive number of milliseconds, not " + text);
            Runtime.getRuntime().halt(2);
        }
        return ms;
    }

    /** Writes one answer line and flushes it; a grader that stopped reading ends the harness. */
    private static void send(String line) {
        PROTOCOL.print(line + "\n");
        PROTOCOL.flush();
        if (PROTOCOL.checkError()) {
            Runtime.getRuntime().halt(1);
        }
    }

    /** Runs one call on the current (worker) thread and returns its answer line. */
    private static String answer(Call call) {
        String head = "{\"id\": " + call.id + ", ";
        Class<?> type;
        Class<?> positionType;
        Constructor<?> board;
        Constructor<?> position;
        Method place = null;
        Method method;
        Class<?>[] types = new Class<?>[call.args.size()];

        // 1. Everything the call needs must exist: else `missing`.
        try {
            type = load(call.role);
            positionType = load("BoardPosition");
            board = constructor(type, call.role, int.class, int.class, int.class);
            position = constructor(positionType, "BoardPosition", int.class, int.class);
            if (!call.moves.isEmpty()) {
                place = method(type, call.role, "placeMarker", positionType, char.class);
            }
            for (int i = 0; i < types.length; i++) {
                Object arg = call.args.get(i);
                types[i] = arg instanceof int[] ? positionType
                        : arg instanceof Character ? char.class
                        : arg instanceof Integer ? int.class
                        : arg instanceof Boolean ? boolean.class
                        : String.class;
            }
            method = method(type, call.role, call.name, types);
        } catch (Missing e) {
            return head + "\"missing\": " + quote(e.getMessage()) + "}";
        } catch (Throwable e) {
            // A class that cannot be loaded or linked (or whose static set-up failed).
            return head + "\"setup_raised\": " + quote(describe(e)) + "}";
        }

        // 2. Set-up: the board and its moves.
        Object game;
        try {
            game = board.newInstance(call.rows, call.cols, call.win);
            for (int[] move : call.moves) {
                place.invoke(game, position.newInstance(move[0], move[1]), (char) move[2]);
            }
        } catch (Throwable e) {
            return head + "\"setup_raised\": " + quote(describe(e)) + "}";
        }

        String before;
        try {
            before = readBack(game, type, call, positionType, position);
        } catch (Throwable e) {
            before = null;
        }

        // 3. The call itself (its BoardPosition arguments are made as part of it).
        String value;
        try {
            Object[] args = new Object[types.length];
            for (int i = 0; i < args.length; i++) {
                Object arg = call.args.get(i);
                args[i] = arg instanceof int[] ? position.newInstance(((int[]) arg)[0], ((int[]) arg)[1]) : arg;
            }
            value = value(method.invoke(game, args));
        } catch (Throwable e) {
            return head + "\"raised\": " + quote(describe(e)) + "}";
        }

        // 4. The board read back with the student's own whatsAtPos, before and
        // after the call (the grader compares the two: a query must not change it).
        StringBuilder answer = new StringBuilder(head).append("\"ok\": ").append(value);
        if (before != null) {
            answer.append(", \"before\": ").append(before);
        }
        try {
            answer.append(", \"after\": ").append(readBack(game, type, call, positionType, position)).append('}');
        } catch (Throwable e) {
            String text = e instanceof Missing ? "missing: " + e.getMessage() : describe(e);
            answer.setLength(0);
            answer.append(head).append("\"ok\": ").append(value).append(", \"after_raised\": ").append(quote(text)).append('}');
        }
        return answer.toString();
    }

    /** The board as the student's whatsAtPos reads it: a JSON array of one string per row. */
    private static String readBack(Object game, Class<?> type, Call call, Class<?> positionType,
            Constructor<?> position) throws Throwable {
        Method whatsAtPos = method(type, call.role, "whatsAtPos", positionType);
        StringBuilder rows = new StringBuilder("[");
        for (int r = 0; r < call.rows; r++) {
            StringBuilder row = new StringBuilder(call.cols);
            for (int c = 0; c < call.cols; c++) {
                Object mark = whatsAtPos.invoke(game, position.newInstance(r, c));
                if (!(mark instanceof Character)) {
                    throw new IllegalStateException("whatsAtPos(" + r + ", " + c + ") returned "
                            + (mark == null ? "null" : "a " + mark.getClass().getName()) + ", not a char");
                }
                row.append((char) (Character) mark);
            }
            rows.append(r == 0 ? "" : ", ").append(quote(row.toString()));
        }
        return rows.append(']').toString();
    }

    /** A class the calls name ("GameBoard"), loaded without running its static set-up yet. */
    private static Class<?> load(String role) throws Missing, ClassNotFoundException {
        String name = classNames.get(role);
        if (name == null || name.equals("-")) {
            throw new Missing("no class named " + role);
        }
        try {
            return Class.forName(name, false, Harness.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new Missing("no class named " + name);
        }
    }

    private static Constructor<?> constructor(Class<?> type, String role, Class<?>... types) throws Missing {
        try {
            Constructor<?> made = type.getDeclaredConstructor(types);
            accessible(made);
            return made;
        } catch (NoSuchMethodException e) {
            throw new Missing("no constructor " + role + signature(types));
        }
    }

    /**
     * A method by name and parameter types: public ones first, with those
     * inherited from interfaces (default methods), then any declared in the
     * class or its superclasses.
     */
    private static Method method(Class<?> type, String role, String name, Class<?>... types) throws Missing {
        Method found = null;
        try {
            found = type.getMethod(name, types);
        } catch (NoSuchMethodException e) {
            for (Class<?> k = type; k != null && found == null; k = k.getSuperclass()) {
                try {
                    found = k.getDeclaredMethod(name, types);
                } catch (NoSuchMethodException ignored) {
                    // look in the superclass
                }
            }
        }
        if (found == null) {
            throw new Missing("no method " + name + signature(types) + " in " + role);
        }
        accessible(found);
        return found;
    }

    /** Lets the harness call a student's class or method that is not public. */
    private static void accessible(java.lang.reflect.AccessibleObject member) {
        try {
            member.setAccessible(true);
        } catch (RuntimeException ignored) {
            // a JDK member; public ones need no help
        }
    }

    /** "(BoardPosition, char)": parameter types as the student wrote them. */
    private static String signature(Class<?>[] types) {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < types.length; i++) {
            text.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return text.append(')').toString();
    }

    /** A value returned by the student as JSON: a char is a one-character string; `null` for void. */
    private static String value(Object value) {
        if (value == null || value instanceof Boolean || value instanceof Integer
                || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return String.valueOf(value);
        }
        if (value instanceof String && ((String) value).length() > MAX_STRING) {
            return "{\"repr\": " + quote("<a String of " + ((String) value).length() + " characters>") + "}";
        }
        if (value instanceof Character || value instanceof String) {
            return quote(value.toString());
        }
        // Nothing the interface returns: shown as text, marked so.
        String text;
        try {
            text = String.valueOf(value);
        } catch (Throwable e) {
            text = "<unprintable " + value.getClass().getName() + ">";
        }
        return "{\"repr\": " + quote(cut(text)) + "}";
    }

    /**
     * "java.lang.ArithmeticException: / by zero": the exception's full type
     * name and its message if any, the one the student's code threw (not
     * reflection's wrapper). A class whose static set-up failed names the cause.
     */
    private static String describe(Throwable e) {
        while ((e instanceof InvocationTargetException) && e.getCause() != null) {
            e = e.getCause();
        }
        String message;
        try {
            message = e.getMessage();
        } catch (Throwable thrown) {
            message = "<getMessage() threw " + thrown.getClass().getName() + ">";
        }
        if (message == null && e instanceof ExceptionInInitializerError && e.getCause() != null) {
            message = "caused by " + describe(e.getCause());
        }
        return cut(message == null ? e.getClass().getName() : e.getClass().getName() + ": " + message);
    }

    private static String cut(String text) {
        return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "...";
    }

    /**
     * A JSON string in ASCII: quotes and backslashes escaped, and control
     * characters and everything past `~` written as a backslash, `u` and four
     * hex digits; a lone surrogate becomes U+FFFD, so any JSON parser accepts it.
     */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                hex(out, c);
                hex(out, text.charAt(++i));
            } else {
                hex(out, Character.isSurrogate(c) ? '\ufffd' : c);
            }
        }
        return out.append('"').toString();
    }

    private static void hex(StringBuilder out, char c) {
        String digits = "0123456789abcdef";
        out.append("\\u").append(digits.charAt(c >> 12)).append(digits.charAt((c >> 8) & 15))
                .append(digits.charAt((c >> 4) & 15)).append(digits.charAt(c & 15));
    }

    /** What the calls name but the submission does not have. */
    private static final class Missing extends Exception {
        private static final long serialVersionUID = 1L;

        Missing(String message) {
            super(message, null, false, false);
        }
    }

    /** One call, checked: a position argument is an int[2], a one-character string a Character, an integer an Integer. */
    private static final class Call {
        String id;
        String role;
        int rows;
        int cols;
        int win;
        List<int[]> moves = new ArrayList<>();
        String name;
        List<Object> args = new ArrayList<>();

        static Call of(Object parsed) {
            if (!(parsed instanceof Map)) {
                throw new IllegalArgumentException("a call is a JSON object");
            }
            Map<?, ?> object = (Map<?, ?>) parsed;
            Call call = new Call();
            Object id = object.get("id");
            if (!(id instanceof Long)) {
                throw new IllegalArgumentException("\"id\" must be an integer");
            }
            call.id = id.toString();
            call.role = text(object, "class");
            if (!call.role.equals("GameBoard") && !call.role.equals("GameBoardMem")) {
                throw new IllegalArgumentException("\"class\" must be GameBoard or GameBoardMem, not " + call.role);
            }
            call.rows = integer(object.get("rows"), "rows");
            call.cols = integer(object.get("cols"), "cols");
            call.win = integer(object.get("win"), "win");
            for (Object move : list(object, "moves")) {
                List<?> m = move instanceof List ? (List<?>) move : List.of();
                if (m.size() != 3 || !(m.get(2) instanceof String) || ((String) m.get(2)).length() != 1) {
                    throw new IllegalArgumentException("a move is [row, column, \"mark\"]");
                }
                call.moves.add(new int[] {
                    integer(m.get(0), "a move's row"), integer(m.get(1), "a move's column"), ((String) m.get(2)).charAt(0)});
            }
            call.name = text(object, "call");
            for (Object arg : list(object, "args")) {
                if (arg instanceof List) {
                    List<?> pos = (List<?>) arg;
                    if (pos.size() != 2) {
                        throw new IllegalArgumentException("a position is [row, column]");
                    }
                    call.args.add(new int[] {integer(pos.get(0), "a row"), integer(pos.get(1), "a column")});
                } else if (arg instanceof String && ((String) arg).length() == 1) {
                    call.args.add(((String) arg).charAt(0));
                } else if (arg instanceof Long) {
                    call.args.add(integer(arg, "an argument"));
                } else if (arg instanceof String || arg instanceof Boolean) {
                    call.args.add(arg);
                } else {
                    throw new IllegalArgumentException("an argument is a position, a string, an integer or a boolean");
                }
            }
            return call;
        }

        private static String text(Map<?, ?> object, String key) {
            Object value = object.get(key);
            if (!(value instanceof String)) {
                throw new IllegalArgumentException("\"" + key + "\" must be a string");
            }
            return (String) value;
        }

        private static List<?> list(Map<?, ?> object, String key) {
            Object value = object.get(key);
            if (value == null) {
                return List.of();
            }
            if (!(value instanceof List)) {
                throw new IllegalArgumentException("\"" + key + "\" must be a list");
            }
            return (List<?>) value;
        }

        private static int integer(Object value, String what) {
            if (!(value instanceof Long) || (Long) value != ((Long) value).intValue()) {
                throw new IllegalArgumentException(what + " must be an integer that fits an int");
            }
            return ((Long) value).intValue();
        }
    }

    /**
     * A small JSON parser for the call lines (the JDK has none): objects
     * (LinkedHashMap), arrays (ArrayList), strings with every escape, integers
     * (Long), booleans and null. Fractions and exponents are refused.
     */
    private static final class Json {
        private final String text;
        private int at;

        Json(String text) {
            this.text = text;
        }

        /** The one value the text holds, with nothing but white space around it. */
        Object document() {
            Object value = value();
            space();
            if (at != text.length()) {
                throw error("text after the value");
            }
            return value;
        }

        private Object value() {
            space();
            if (at >= text.length()) {
                throw error("a value was expected");
            }
            char c = text.charAt(at);
            if (c == '{') {
                return object();
            } else if (c == '[') {
                return array();
            } else if (c == '"') {
                return string();
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                return number();
            } else if (text.startsWith("true", at)) {
                at += 4;
                return Boolean.TRUE;
            } else if (text.startsWith("false", at)) {
                at += 5;
                return Boolean.FALSE;
            } else if (text.startsWith("null", at)) {
                at += 4;
                return null;
            }
            throw error("unexpected character " + quote(String.valueOf(c)));
        }

        private Map<String, Object> object() {
            Map<String, Object> object = new LinkedHashMap<>();
            at++;
            space();
            if (peek() == '}') {
                at++;
                return object;
            }
            while (true) {
                space();
                if (peek() != '"') {
                    throw error("a key was expected");
                }
                String key = string();
                space();
                expect(':');
                object.put(key, value());
                space();
                if (peek() == '}') {
                    at++;
                    return object;
                }
                expect(',');
            }
        }

        private List<Object> array() {
            List<Object> array = new ArrayList<>();
            at++;
            space();
            if (peek() == ']') {
                at++;
                return array;
            }
            while (true) {
                array.add(value());
                space();
                if (peek() == ']') {
                    at++;
                    return array;
                }
                expect(',');
            }
        }

        private String string() {
            StringBuilder out = new StringBuilder();
            at++;
            while (true) {
                if (at >= text.length()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                } else if (c < 0x20) {
                    throw error("a control character in a string");
                } else if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = at < text.length() ? text.charAt(at++) : '?';
                switch (e) {
                    case '"': case '\\': case '/': out.append(e); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        if (at + 4 > text.length()) {
                            throw error("a short \\u escape");
                        }
                        try {
                            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        } catch (NumberFormatException bad) {
                            throw error("a bad \\u escape");
                        }
                        at += 4;
                        break;
                    default:
                        throw error("a bad escape");
                }
            }
        }

        private Long number() {
            int start = at;
            if (peek() == '-') {
                at++;
            }
            while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
                at++;
            }
            char next = peek();
            if (next == '.' || next == 'e' || next == 'E') {
                throw error("only integers are expected");
            }
            try {
                return Long.valueOf(text.substring(start, at));
            } catch (NumberFormatException e) {
                throw error("a bad number");
            }
        }

        private void space() {
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
        }

        private char peek() {
            return at < text.length() ? text.charAt(at) : '\0';
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("'" + c + "' was expected");
            }
            at++;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at character " + (at + 1));
        }
    }
}
